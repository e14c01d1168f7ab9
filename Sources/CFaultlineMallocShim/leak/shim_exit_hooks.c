// A program that leaves by _exit, _Exit or a raw exit_group runs no
// destructor, so it got no exit checks: a forked worker ending in
// os._exit, a daemon's child. valgrind checks it, so the shim does too:
// these interposers run shim_exit_checks first. A vfork child (Python's
// subprocess uses vfork; posix_spawn's child calls libc's internal _exit,
// which passes no interposer) shares the parent's memory, so its checks
// would scan and change the parent's state: a pid that is not the one this
// image recorded at start or fork means such a child, and nothing runs.
#include "shim_exit_check.h"
#include "interpose_next.h"
#include "syscall_words.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef void (*exit_fn)(int);
typedef long (*syscall_fn)(long, ...);

FL_NEXT_VAR(_exit)
FL_NEXT_VAR(_Exit)
FL_NEXT_VAR(syscall)
#define real(name) (next_##name ? next_##name : dlsym(RTLD_NEXT, #name))

static pid_t g_pid;  // this process's, at start and after each fork

static void after_fork_child(void) { g_pid = (pid_t)syscall(SYS_getpid); }

__attribute__((constructor)) static void record_pid(void) {
    g_pid = (pid_t)syscall(SYS_getpid);
    pthread_atfork(0, 0, after_fork_child);
}

static void leaving(void) {
    if (g_pid && (pid_t)syscall(SYS_getpid) == g_pid) shim_exit_checks();
}

FL_EXPORT void _exit(int status) {
    leaving();
    ((exit_fn)real(_exit))(status);
    __builtin_unreachable();
}

FL_EXPORT void _Exit(int status) {
    leaving();
    ((exit_fn)real(_Exit))(status);
    __builtin_unreachable();
}

// syscall(SYS_exit_group, n): the arguments are passed on as six words,
// as glibc's own syscall() reads them, and the call is made here, not
// through libc's found by dlsym (syscall_words.h says why).
FL_EXPORT long syscall(long nr, ...) {
    FL_SYSCALL_WORDS(nr, a);
    if (nr == SYS_exit_group) leaving();
#ifdef FL_HAVE_SYSCALL_WORDS
    return fl_syscall_words(nr, a);
#else
    return ((syscall_fn)real(syscall))(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
#endif
}
