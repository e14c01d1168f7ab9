// fcntl and fcntl64: F_DUPFD and F_DUPFD_CLOEXEC make a new descriptor,
// which the fds detector follows as it does dup's, and which is a copy of
// stderr when the old one was (stderr_tee.c keeps what is written to it:
// a program saving fd 2 with fcntl(2, F_DUPFD_CLOEXEC, 10), as Python's
// and Rust's runtimes do, then writing to the copy). Every other command
// is passed on untouched: the third argument is read as the machine word
// it was passed in (an int, a pointer or nothing), as glibc's own fcntl
// reads it, so a lock's struct or an owner's int arrive as they were.
#include "fd_hooks.h"
#include "stderr_capture.h"
#include "interpose_next.h"

#include <fcntl.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef int (*fcntl_fn)(int, int, ...);

FL_NEXT_VAR(fcntl)
FL_NEXT_VAR(fcntl64)

// The next fcntl, or the system call when it was not found yet (a call
// from a constructor that ran before ours: dlsym there may take the
// loader's lock, which that constructor's dlopen holds).
static int pass_on(void *next, int fd, int cmd, unsigned long arg) {
    if (next) return ((fcntl_fn)next)(fd, cmd, arg);
    return (int)syscall(SYS_fcntl, fd, cmd, arg);
}

// After a successful F_DUPFD*: `r` is a new fd, a copy of `fd`.
static int duplicated(int fd, int cmd, int r, const void *caller) {
    if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)) {
        fl_stderr_copied(fd, r);
        fl_fds_opened(r, FL_FD_FCNTL, caller);
    }
    return r;
}

#define FCNTL_LIKE(name)                                                   \
    FL_EXPORT int name(int fd, int cmd, ...) {                             \
        va_list ap;                                                        \
        va_start(ap, cmd);                                                 \
        unsigned long arg = va_arg(ap, unsigned long);                     \
        va_end(ap);                                                        \
        int r = pass_on(next_##name, fd, cmd, arg);                        \
        return duplicated(fd, cmd, r, __builtin_return_address(0));        \
    }
FCNTL_LIKE(fcntl)
FCNTL_LIKE(fcntl64)
