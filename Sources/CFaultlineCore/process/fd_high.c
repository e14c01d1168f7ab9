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

static int raised_limit(const struct rlimit *old, struct rlimit *raised);

// A soft limit equal to a hard one this process may not raise (this VM's
// 20000/20000; Docker's 1048576/1048576, at fs.nr_open): nothing is above
// the limit for our fds, and an open of ours once the program has used
// every number could only take an fd held in reserve for it, at 960, where
// a program's scan of 0 .. SC_OPEN_MAX - 1 or its /proc/self/fd listing
// sees it. So the soft limit is lowered by FL_FD_HIGH_ROOM, once, at the
// first use (install): the program then has 64 fds fewer (as under
// valgrind, whose client sees the limit less the fds valgrind keeps), its
// children inherit the lowered limit, and the room above it is ours to
// raise into for one call (fl_fd_openat_raised), so no fd is held.
static void make_room(struct rlimit *rl) {
    struct rlimit raised;
    if (rl->rlim_cur != rl->rlim_max || rl->rlim_cur == RLIM_INFINITY ||
        rl->rlim_cur <= FL_FD_LOW_LIMIT + FL_FD_HIGH_ROOM || raised_limit(rl, &raised))
        return;
    struct rlimit lowered = *rl;
    lowered.rlim_cur -= FL_FD_HIGH_ROOM;
    // Raw: not the agent's setrlimit interposer (fd_limit.c).
    if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &lowered, 0) == 0) *rl = lowered;
}

static int high_base(void) {
    int b = atomic_load_explicit(&g_base, memory_order_acquire);
    if (b) return b;
    struct rlimit rl;
    long top = FL_FD_HIGH_CEILING;
    int above = 0;
    // getrlimit is a plain syscall (prlimit64): async-signal-safe.
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        make_room(&rl);
        if (rl.rlim_cur < (rlim_t)top) top = (long)rl.rlim_cur;
        above = rl.rlim_cur <= FL_FD_HIGH_CEILING && rl.rlim_max >= rl.rlim_cur + FL_FD_HIGH_ROOM;
    }
    atomic_store_explicit(&g_limit, top, memory_order_relaxed);
    atomic_store_explicit(&g_above, above, memory_order_relaxed);
    b = top <= FL_FD_LOW_LIMIT ? -1 : above ? (int)top : (int)(top - FL_FD_HIGH_ROOM);  // a tiny limit: stay low
    atomic_store_explicit(&g_base, b, memory_order_release);  // after g_limit
    return b;
}

int fl_fd_limit_raised_past_high(void) {
    int base = high_base();
    struct rlimit rl;
    if (base < 0 || !atomic_load_explicit(&g_above, memory_order_relaxed)) return 0;
    // Raw: the interposed prlimit is the program's business.
    if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, &rl) != 0) return 0;
    return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (rlim_t)base;
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

// fs.nr_open, the most any RLIMIT_NOFILE may be: read once (an open at
// install; out of fds it stays unknown, 0, and the hard limit is not
// raised).
static atomic_long g_nr_open;

static long nr_open(void) {
    long v = atomic_load_explicit(&g_nr_open, memory_order_relaxed);
    if (v) return v;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/sys/fs/nr_open", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[24];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    syscall(SYS_close, fd);
    v = 0;
    for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++) v = v * 10 + (buf[i] - '0');
    if (v > 0) atomic_store_explicit(&g_nr_open, v, memory_order_relaxed);
    return v;
}

// 1 when this thread has CAP_SYS_RESOURCE in its effective set (capget:
// a plain syscall), which lets it raise the hard limit too. Root has it
// outside a container that drops it; Docker's default set does not.
static int may_raise_hard(void) {
    struct { unsigned version; int pid; } h = {0x20080522 /* _LINUX_CAPABILITY_VERSION_3 */, 0};
    struct { unsigned effective, permitted, inheritable; } d[2] = {{0, 0, 0}, {0, 0, 0}};
    return syscall(SYS_capget, &h, d) == 0 && (d[0].effective & (1u << 24 /* CAP_SYS_RESOURCE */));
}

// The limit `old` raised by FL_FD_HIGH_ROOM into `raised`: the soft limit
// alone when the hard one leaves room, else both when this process may
// raise the hard limit and fs.nr_open leaves room. 0 when neither.
static int raised_limit(const struct rlimit *old, struct rlimit *raised) {
    if (old->rlim_cur == RLIM_INFINITY || old->rlim_max == RLIM_INFINITY) return 0;
    *raised = *old;
    raised->rlim_cur = old->rlim_cur + FL_FD_HIGH_ROOM;
    if (raised->rlim_cur <= raised->rlim_max) return 1;
    long top = nr_open();
    if (top <= 0 || raised->rlim_cur > (rlim_t)top || !may_raise_hard()) return 0;
    raised->rlim_max = raised->rlim_cur;
    return 1;
}

int fl_fd_limit_raisable(void) {
    struct rlimit rl, raised;
    return syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, &rl) == 0 && raised_limit(&rl, &raised);
}

int fl_fd_raise_begin(struct rlimit *old) {
    struct rlimit raised;
    if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, old) != 0 || !raised_limit(old, &raised) ||
        syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &raised, 0) != 0) {
        errno = EMFILE;
        return -1;
    }
    return 0;
}

void fl_fd_raise_end(const struct rlimit *old) {
    int err = errno;
    // Lowering a hard limit needs no privilege: the program's own is back.
    syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, old, 0);
    errno = err;
}

int fl_fd_openat_raised(int dir, const char *name, int flags, unsigned mode) {
    struct rlimit old;
    if (fl_fd_raise_begin(&old) != 0) return -1;
    int fd = openat(dir, name, flags, (mode_t)mode);
    fl_fd_raise_end(&old);
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
