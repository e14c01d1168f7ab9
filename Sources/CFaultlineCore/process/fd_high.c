#include "fd_high.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

// Never above this: a soft limit of 2^20 (containers) must not make the
// kernel grow every process's fd table to a million entries.
#define FL_FD_HIGH_CEILING 1024
// Room for the fds the agent, the shim and libunwind hold.
#define FL_FD_HIGH_ROOM 64

static atomic_int g_base;  // 0: not computed yet
static atomic_long g_limit;  // the soft limit high_base saw (capped at the ceiling)
// 1 when the base is the soft limit itself: ours live above the numbers the
// program may open, where a loop closing up to the limit, or a scan of the
// fds below it (CPython's fd_status: fstat of 0 .. SC_OPEN_MAX - 1), never
// meets them, as valgrind keeps its own. Making one there takes the soft
// limit raised for the call.
static atomic_int g_above;

static int high_base(void) {
    int b = atomic_load_explicit(&g_base, memory_order_acquire);
    if (b) return b;
    struct rlimit rl;
    long top = FL_FD_HIGH_CEILING;
    int above = 0;
    // getrlimit is a plain syscall (prlimit64): async-signal-safe.
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        if (rl.rlim_cur < (rlim_t)top) top = (long)rl.rlim_cur;
        above = rl.rlim_cur <= FL_FD_HIGH_CEILING && rl.rlim_max >= rl.rlim_cur + FL_FD_HIGH_ROOM;
    }
    atomic_store_explicit(&g_limit, top, memory_order_relaxed);
    atomic_store_explicit(&g_above, above, memory_order_relaxed);
    b = top <= FL_FD_LOW_LIMIT ? -1 : above ? (int)top : (int)(top - FL_FD_HIGH_ROOM);  // a tiny limit: stay low
    atomic_store_explicit(&g_base, b, memory_order_release);  // after g_limit
    return b;
}

int fl_fd_low_limit(void) {
    if (high_base() >= 0) return 0;
    long limit = atomic_load_explicit(&g_limit, memory_order_relaxed);
    return limit > 0 ? (int)limit : 1;  // a limit of 0 is still low
}

// F_DUPFD to `base` or above; above the soft limit, with the limit raised
// by FL_FD_HIGH_ROOM for the call (raw prlimit64: no interposer, and the
// value the program set is put back at once).
static int dup_at(int fd, int cmd, int base) {
    if (!atomic_load_explicit(&g_above, memory_order_relaxed)) return fcntl(fd, cmd, base);
    struct rlimit old, raised;
    if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, &old) != 0 || old.rlim_cur > (rlim_t)base) return fcntl(fd, cmd, base);
    raised = old;
    raised.rlim_cur = (rlim_t)base + FL_FD_HIGH_ROOM;
    if (raised.rlim_cur > raised.rlim_max || syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &raised, 0) != 0) return -1;
    int moved = fcntl(fd, cmd, base);
    syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &old, 0);
    return moved;
}

int fl_fd_limit_raisable(void) {
    struct rlimit rl;
    return syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, &rl) == 0 && rl.rlim_max != RLIM_INFINITY &&
           rl.rlim_cur + FL_FD_HIGH_ROOM <= rl.rlim_max;
}

int fl_fd_openat_raised(int dir, const char *name, int flags, unsigned mode) {
    struct rlimit old, raised;
    if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, &old) != 0) { errno = EMFILE; return -1; }
    raised = old;
    raised.rlim_cur = old.rlim_cur + FL_FD_HIGH_ROOM;
    if (raised.rlim_cur > raised.rlim_max || syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &raised, 0) != 0) { errno = EMFILE; return -1; }
    int fd = openat(dir, name, flags, (mode_t)mode);
    int err = errno;
    syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &old, 0);
    errno = err;
    return fd;
}

int fl_fd_move_high(int fd) {
    int base = high_base();
    if (fd < 0 || base < 0 || fd >= base) return fd;
    int flags = fcntl(fd, F_GETFD);
    if (flags < 0) return fd;
    int moved = dup_at(fd, (flags & FD_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, base);
    if (moved < 0) return fd;
    // The raw syscall: the agent interposes close() to protect guarded fds,
    // and `fd` may be one of them while it is being moved.
    syscall(SYS_close, fd);
    return moved;
}
