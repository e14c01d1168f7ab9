// syscall(): a program that opens or closes through libc's syscall()
// wrapper (syscall(SYS_openat, ...), as some runtimes and sandboxes do)
// passes no open or close interposer, so the fds detector sees the
// numbers here, and syscall(SYS_exit_group) runs its exit check, as _exit
// does (fd_report.h). Every call is passed on to the next syscall() — the
// malloc shim's, which runs its own exit_group check, or libc's — with
// the six machine words glibc's wrapper reads. Faultline's own calls come
// through here too (its code calls syscall() everywhere); the table
// ignores opens made from Faultline's code (fd_table.c), and the rest is
// a switch on the number.
#include "fd_hooks.h"
#include "fd_report.h"
#include "stderr_capture.h"
#include "interpose_next.h"
#include "syscall_words.h"

#include <sys/syscall.h>

typedef long (*syscall_fn)(long, ...);

FL_NEXT_VAR(syscall)

// The call itself when no next syscall() was found yet (a call made
// before the agent's constructor ran): dlsym there may allocate, inside an
// allocator's own start (syscall_words.h).
static long pass_on(long nr, const long a[6]) {
    if (next_syscall) return ((syscall_fn)next_syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
#ifdef FL_HAVE_SYSCALL_WORDS
    return fl_syscall_words(nr, a);
#else
    syscall_fn next = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
    if (!next) { errno = ENOSYS; return -1; }
    return next(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
#endif
}

// What call `nr` did to the descriptors, after it returned `r`.
static void followed(long nr, const long a[6], long r, const void *caller) {
    switch (nr) {
#ifdef SYS_open
    case SYS_open:
#endif
#ifdef SYS_creat
    case SYS_creat:
#endif
    case SYS_openat:
    case SYS_socket:
    case SYS_accept:
    case SYS_accept4:
    case SYS_eventfd2:
    case SYS_epoll_create1:
    case SYS_memfd_create:
    case SYS_timerfd_create:
    case SYS_inotify_init1:
        fl_fds_opened((int)r, FL_FD_SYSCALL, caller);
        break;
#ifdef SYS_dup2
    case SYS_dup2:
#endif
    case SYS_dup:
    case SYS_dup3:
        if (r >= 0) fl_stderr_copied((int)a[0], (int)r);
        if (r != a[0]) fl_fds_opened((int)r, FL_FD_SYSCALL, caller);
        break;
#ifdef SYS_pipe
    case SYS_pipe:
#endif
    case SYS_pipe2:
    case SYS_socketpair: {
        if (r != 0) break;
        const int *fds = (const int *)(nr == SYS_socketpair ? a[3] : a[0]);
        fl_fds_opened_pair(fds, FL_FD_SYSCALL, caller);
        break;
    }
    }
}

FL_EXPORT long syscall(long nr, ...) {
    FL_SYSCALL_WORDS(nr, a);
    if (nr == SYS_exit_group) fl_fd_report_leaving();
    if (nr == SYS_close && fl_fd_table_on()) {
        // Forgotten first: the number is free for another thread once closed.
        fl_fds_closing((int)a[0]);
        fl_stderr_closed((unsigned)a[0], (unsigned)a[0]);
    }
    long r = pass_on(nr, a);
    if (r >= 0 && fl_fd_table_on()) followed(nr, a, r, __builtin_return_address(0));
    return r;
}
