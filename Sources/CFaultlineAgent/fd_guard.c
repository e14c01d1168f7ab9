// Interposes close, close_range and closefrom so that a program closing
// fds it did not open skips the agent's (see fd_guard.h). Closing a guarded
// fd fails with EBADF, as closing an fd that is not open does (valgrind
// answers the same for its own fds); a range closes everything around them.
// dup2/dup3 onto a guarded number are not intercepted.
#include "fd_guard.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FL_EXPORT __attribute__((visibility("default")))
// stderr capture 3, hang probe 1, memory monitor up to about 16 (cgroup
// counters and limits, pressure, statm, maps).
#define FL_FD_GUARD_MAX 32

// glibc's exported alias of close: no dlsym on a path that libraries'
// constructors (the malloc shim's among them) may take before ours ran.
extern int __close(int);

// fd + 1 per slot, 0 when free.
static atomic_int g_guarded[FL_FD_GUARD_MAX];

void fl_fd_guard(int fd) {
    if (fd < 0) return;
    for (int i = 0; i < FL_FD_GUARD_MAX; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&g_guarded[i], &expected, fd + 1)) return;
    }
}

void fl_fd_unguard(int fd) {
    for (int i = 0; i < FL_FD_GUARD_MAX; i++) {
        int expected = fd + 1;
        atomic_compare_exchange_strong(&g_guarded[i], &expected, 0);
    }
}

void fl_fd_close(int fd) {
    fl_fd_unguard(fd);
    __close(fd);
}

static int guarded(unsigned fd) {
    for (int i = 0; i < FL_FD_GUARD_MAX; i++)
        if ((unsigned)atomic_load(&g_guarded[i]) == fd + 1) return 1;
    return 0;
}

// The lowest guarded fd in [lo, hi], or -1.
static long lowest_guarded(unsigned lo, unsigned hi) {
    long best = -1;
    for (int i = 0; i < FL_FD_GUARD_MAX; i++) {
        int v = atomic_load(&g_guarded[i]);
        if (v <= 0) continue;
        unsigned fd = (unsigned)(v - 1);
        if (fd >= lo && fd <= hi && (best < 0 || fd < (unsigned)best)) best = fd;
    }
    return best;
}

typedef int (*close_range_fn)(unsigned, unsigned, int);


FL_EXPORT int close(int fd) {
    if (fd >= 0 && guarded((unsigned)fd)) { errno = EBADF; return -1; }
    return __close(fd);
}

static int real_close_range(unsigned lo, unsigned hi, int flags) {
    static close_range_fn real;
    if (!real) real = (close_range_fn)dlsym(RTLD_NEXT, "close_range");
    return real ? real(lo, hi, flags) : (int)syscall(SYS_close_range, lo, hi, flags);
}

// Closes [lo, hi] in the pieces between guarded fds.
static int close_range_around(unsigned lo, unsigned hi, int flags) {
    for (;;) {
        long g = lowest_guarded(lo, hi);
        if (g < 0) return real_close_range(lo, hi, flags);
        if ((unsigned)g > lo && real_close_range(lo, (unsigned)g - 1, flags) != 0) return -1;
        if ((unsigned)g == hi) return 0;
        lo = (unsigned)g + 1;
    }
}

FL_EXPORT int close_range(unsigned first, unsigned last, int flags) {
    if (first > last) return real_close_range(first, last, flags);  // EINVAL, as the kernel says
    return close_range_around(first, last, flags);
}

FL_EXPORT void closefrom(int lowfd) {
    unsigned lo = lowfd < 0 ? 0 : (unsigned)lowfd;
    if (close_range_around(lo, UINT_MAX, 0) == 0) return;
    // No close_range (a kernel before 5.9): close one by one up to the limit.
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = lo; fd < (max > 0 ? max : 1024); fd++) close((int)fd);
}
