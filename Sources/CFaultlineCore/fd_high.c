#include "fd_high.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

// Never above this: a soft limit of 2^20 (containers) must not make the
// kernel grow every process's fd table to a million entries.
#define FL_FD_HIGH_CEILING 1024
// Room at the top for the ~25 fds the agent, the shim and libunwind hold.
#define FL_FD_HIGH_ROOM 64

static atomic_int g_base;  // 0: not computed yet
static atomic_long g_limit;  // the soft limit high_base saw (capped at the ceiling)

static int high_base(void) {
    int b = atomic_load_explicit(&g_base, memory_order_acquire);
    if (b) return b;
    struct rlimit rl;
    long top = FL_FD_HIGH_CEILING;
    // getrlimit is a plain syscall (prlimit64): async-signal-safe.
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)top) top = (long)rl.rlim_cur;
    atomic_store_explicit(&g_limit, top, memory_order_relaxed);
    b = top > FL_FD_LOW_LIMIT ? (int)(top - FL_FD_HIGH_ROOM) : -1;  // a tiny limit: stay low
    atomic_store_explicit(&g_base, b, memory_order_release);  // after g_limit
    return b;
}

int fl_fd_low_limit(void) {
    if (high_base() >= 0) return 0;
    long limit = atomic_load_explicit(&g_limit, memory_order_relaxed);
    return limit > 0 ? (int)limit : 1;  // a limit of 0 is still low
}

int fl_fd_move_high(int fd) {
    int base = high_base();
    if (fd < 0 || base < 0 || fd >= base) return fd;
    int flags = fcntl(fd, F_GETFD);
    if (flags < 0) return fd;
    int moved = fcntl(fd, (flags & FD_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, base);
    if (moved < 0) return fd;
    // The raw syscall: the agent interposes close() to protect guarded fds,
    // and `fd` may be one of them while it is being moved.
    syscall(SYS_close, fd);
    return moved;
}
