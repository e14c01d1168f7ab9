#include "fd_transient.h"

#include "fd_high.h"
#include "sigsafe.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

// A Dekker-style pair: each side announces itself, then checks the other;
// sequentially consistent atomics keep both from passing at once. An open
// that has announced itself stays announced and waits for the dup2s already
// under way; a dup2 that finds an open announced steps back and waits. The
// program may call dup2 in a tight loop: if opens stepped back too, a
// watchdog tick could wait out its whole bound and go ahead unprotected.
static atomic_int g_opening;  // our opens whose fd may still be low
static atomic_int g_duping;   // the program's dup2/dup3 calls in progress

// How long either side waits for the other. An open and a dup2 each take
// microseconds, but on a loaded machine the thread inside one can be
// preempted for tens of milliseconds (20 ms here let 1 run in 8 through).
// The bound is only there for a signal handler that interrupted the other
// side on its own thread, which would otherwise wait forever.
#define FL_FD_WAIT_NS 250000000ull

// Waits while `other` is non-zero, until `deadline` (0: set it now).
static void wait_for_zero(atomic_int *other, uint64_t *deadline) {
    while (atomic_load(other) != 0) {
        uint64_t now = fl_monotonic_ns();
        if (!*deadline) *deadline = now + FL_FD_WAIT_NS;
        if (now > *deadline) return;
        sched_yield();
    }
}

void fl_fd_open_begin(void) {
    uint64_t deadline = 0;
    atomic_fetch_add(&g_opening, 1);
    wait_for_zero(&g_duping, &deadline);
}

void fl_fd_open_end(void) { atomic_fetch_sub(&g_opening, 1); }

// The reserve (fd_transient.h): its number while held, else -1. Whoever
// exchanges it for -1 owns it, so two reports running out of fds at once
// cannot both close it.
static atomic_int g_reserve = -1;
static atomic_int g_reserve_kept;  // 1 once fl_fd_reserve_take chose to hold one
// The thread whose open has the reserve's number, until the next
// fl_close_high takes it back; 0 when none has.
static atomic_int g_lent_to;
// Another copy's functions (the agent's, in the malloc shim), or none.
static int (*_Atomic g_openat_fwd)(int, const char *, int, mode_t);
static void (*_Atomic g_close_fwd)(int);

// openat, moved high, between fl_fd_open_begin and fl_fd_open_end.
static int open_moved(int dir, const char *name, int flags, mode_t mode) {
    fl_fd_open_begin();
    int fd = fl_fd_move_high(openat(dir, name, flags, mode));
    fl_fd_open_end();
    return fd;
}

// Whether `fd` is still the reserve: the program may have closed it with a
// raw close_range (only the agent's interposers guard it, not the shim
// alone's), and the number be one of its own files now, which we must not
// close. The program's own /dev/null fds are not O_PATH.
static int is_reserve(int fd) {
    struct stat st;
    int fl = fcntl(fd, F_GETFL);
    return fl >= 0 && (fl & O_PATH) && fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

// Closes the reserve so that an open may have its number. 1 when it did.
// While another thread's open has it (the hang watchdog's tick when the
// program crashes), waits for that thread to give it back, as long as
// fl_fd_open_begin would; not for an open of this thread's own (a nested
// one, or one that a signal handler on it interrupted).
static int release_reserve(void) {
    int self = (int)syscall(SYS_gettid);
    uint64_t deadline = 0;
    for (;;) {
        int fd = atomic_exchange(&g_reserve, -1);
        if (fd >= 0) {
            if (!is_reserve(fd)) return 0;
            atomic_store(&g_lent_to, self);
            // The raw syscall: the agent's close() refuses guarded fds.
            syscall(SYS_close, fd);
            return 1;
        }
        int lent_to = atomic_load(&g_lent_to);
        if (!lent_to || lent_to == self) return 0;
        uint64_t now = fl_monotonic_ns();
        if (!deadline) deadline = now + FL_FD_WAIT_NS;
        if (now > deadline) return 0;
        sched_yield();
    }
}

// Opens the reserve when one is kept and none is held: after an open used
// its number and closed it again, or at install.
static void take_reserve(void) {
    if (!atomic_load(&g_reserve_kept) || atomic_load(&g_reserve) >= 0) return;
    int fd = open_moved(AT_FDCWD, "/dev/null", O_PATH | O_CLOEXEC, 0);
    int none = -1;
    // Another thread's close took it back first.
    if (fd >= 0 && !atomic_compare_exchange_strong(&g_reserve, &none, fd)) syscall(SYS_close, fd);
    // Taken back, or lost to the program (a later close tries again): no
    // open waits for it any more.
    atomic_store(&g_lent_to, 0);
}

int fl_open_high(const char *path, int flags) { return fl_openat_high(AT_FDCWD, path, flags, 0); }

int fl_openat_high(int dir, const char *name, int flags, mode_t mode) {
    int (*fwd)(int, const char *, int, mode_t) = atomic_load(&g_openat_fwd);
    if (fwd) return fwd(dir, name, flags, mode);
    int fd = open_moved(dir, name, flags, mode);
    // The program has used every fd it may have (EMFILE), or the system
    // every file (ENFILE; any process may then take the one we free): this
    // open gets the reserve's number.
    if (fd < 0 && errno == EMFILE && fl_fd_limit_raisable()) {
        // The limit raised for this one open gives it a number, with no fd
        // held in reserve.
        fl_fd_open_begin();
        fd = fl_fd_move_high(fl_fd_openat_raised(dir, name, flags, mode));
        int err = errno;
        fl_fd_open_end();
        errno = err;
        return fd;
    }
    if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
        int err = errno;
        if (!release_reserve()) {
            errno = err;  // not the reserve check's
            return -1;
        }
        fd = open_moved(dir, name, flags, mode);
        err = errno;
        // Out of fds, an open reports that before it looks at the path: a
        // file that is not there (a thread gone from /proc) fails only now,
        // and no fl_close_high will take the reserve back.
        if (fd < 0) take_reserve();
        errno = err;
    }
    return fd;
}

void fl_close_high(int fd) {
    void (*fwd)(int) = atomic_load(&g_close_fwd);
    if (fwd) { fwd(fd); return; }
    if (fd < 0) return;
    int saved = errno;
    close(fd);
    take_reserve();
    errno = saved;
}

int fl_fd_reserve_take(void) {
    // Where the soft limit can be raised an open at EMFILE raises it
    // instead (fl_fd_openat_raised): nothing to hold.
    if (atomic_load(&g_openat_fwd) || fl_fd_low_limit() || fl_fd_limit_raisable()) return -1;
    atomic_store(&g_reserve_kept, 1);
    take_reserve();
    return atomic_load(&g_reserve);
}

void fl_fd_reserve_before_setid(void) {
    struct rlimit rl;
    if (atomic_load(&g_openat_fwd) || fl_fd_low_limit() || syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, &rl) != 0) return;
    // Raisable by the soft limit alone: no privilege involved.
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_cur + 64 <= rl.rlim_max) return;
    atomic_store(&g_reserve_kept, 1);
    take_reserve();
}

int fl_fd_reserve(void) { return atomic_load(&g_reserve); }

void fl_fd_reserve_forget(int fd) {
    int expected = fd;
    atomic_compare_exchange_strong(&g_reserve, &expected, -1);
}

void fl_fd_reserve_stop_keeping(void) { atomic_store(&g_reserve_kept, 0); }

void fl_fd_transient_share(int (*openat_high)(int, const char *, int, mode_t), void (*close_high)(int)) {
    atomic_store(&g_close_fwd, close_high);
    atomic_store(&g_openat_fwd, openat_high);
    atomic_store(&g_reserve_kept, 0);
    int fd = atomic_exchange(&g_reserve, -1);
    if (fd >= 0) syscall(SYS_close, fd);
}

void fl_fd_dup_begin(void) {
    uint64_t deadline = 0;
    for (;;) {
        atomic_fetch_add(&g_duping, 1);
        if (atomic_load(&g_opening) == 0) return;
        atomic_fetch_sub(&g_duping, 1);
        wait_for_zero(&g_opening, &deadline);
        // Past the bound: go ahead, announced, rather than wait on.
        if (deadline && fl_monotonic_ns() > deadline) { atomic_fetch_add(&g_duping, 1); return; }
    }
}

void fl_fd_dup_end(void) { atomic_fetch_sub(&g_duping, 1); }
