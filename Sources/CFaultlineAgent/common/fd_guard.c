// Interposes close, close_range, closefrom, dup2 and dup3 so that a program
// closing or replacing fds it did not open cannot leave the agent holding a
// number that is the program's now (see fd_guard.h). Hidden fds (the hang
// probe's, libunwind's pipe, the fd reserve and the report directory) are
// let go: the program's call closes or replaces them as it would any fd,
// the agent forgets them first and opens again when it needs one, so a
// program that closes everything and lists /proc/self/fd sees none of
// ours. Guarded fds (the memory monitor's) are kept: closing one, or dup2
// onto one, fails with EBADF, as valgrind answers for its own; a range
// closes everything around them. pipe2 is interposed only to find
// libunwind's memory-validation pipe (unwind_pipe.h), which the agent lets
// go after each unwind and libunwind makes again when it next needs it.
#include "interpose_next.h"
#include "fd_guard.h"
#include "fd_hooks.h"
#include "fd_high.h"
#include "fd_slots.h"
#include "fd_transient.h"
#include "report_file.h"
#include "stderr_capture.h"
#include "unwind_pipe.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/close_range.h>

#define FL_EXPORT __attribute__((visibility("default")))
// stderr capture 3, hang probe 1, memory monitor up to about 16 (cgroup
// counters and limits, pressure, statm, maps).
#define FL_FD_GUARD_MAX 32
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC 4
#endif

// glibc's exported alias of close: no dlsym on a path that libraries'
// constructors (the malloc shim's among them) may take before ours ran.
extern int __close(int);

// fd + 1 per slot, 0 when free.
static atomic_int g_guarded[FL_FD_GUARD_MAX];
static atomic_int g_hidden[FL_FD_GUARD_MAX];

static void slot_add(atomic_int *slots, int fd) { fl_fd_slots_put(slots, FL_FD_GUARD_MAX, fd); }
static int slot_take(atomic_int *slots, int fd) { return fl_fd_slots_take(slots, FL_FD_GUARD_MAX, fd); }

int fl_fd_hide(int fd) {
    fd = fl_fd_move_high(fd);
    if (fd >= 0) slot_add(g_hidden, fd);
    return fd;
}

int fl_fd_hidden(int fd) { return fd >= 0 && fl_fd_slots_has(g_hidden, FL_FD_GUARD_MAX, fd); }

// What let_go found among the fds it forgot: the ones taken again right
// after the program's call (above the program's numbers), so that a
// program that closes everything and then uses up its fds
// (crash.out-of-fds) still has the two a report needs.
enum { RETAKE_RESERVE = 1, RETAKE_REPORT_DIR = 2 };

// The program is closing or replacing `fd`: if it is one of ours that
// yields, forget it first (the caller's call then does the rest).
static int let_go(int fd) {
    if (fd < 0) return 0;
    int retake = 0;
    slot_take(g_hidden, fd);
    fl_unwind_pipe_forget(fd);
    if (fd == fl_report_dir_held()) { fl_report_dir_forget(fd); retake |= RETAKE_REPORT_DIR; }
    if (fd == fl_fd_reserve()) { fl_fd_reserve_forget(fd); retake |= RETAKE_RESERVE; }
    return retake;
}

// let_go for every hidden and moving fd in [lo, hi]: what to retake.
static int let_go_range(unsigned lo, unsigned hi) {
    for (int i = 0; i < FL_FD_GUARD_MAX; i++) {
        int v = atomic_load(&g_hidden[i]);
        if (v > 0 && (unsigned)(v - 1) >= lo && (unsigned)(v - 1) <= hi) let_go(v - 1);
    }
    int r = fl_fd_reserve(), d = fl_report_dir_held(), retake = 0;
    if (r >= 0 && (unsigned)r >= lo && (unsigned)r <= hi) retake |= let_go(r);
    if (d >= 0 && (unsigned)d >= lo && (unsigned)d <= hi) retake |= let_go(d);
    return retake;
}

// After the program's call closed them: taken again, keeping errno, when
// they land above the program's numbers. Where they cannot (the program
// raised its soft limit past the high base, so nothing lies above it: a
// test runner's setrlimit to the hard limit, then a worker's close-all),
// taking them again would put them back among the fds the program just
// closed and lists: they are let go for good instead, the report directory
// opened per report and no reserve kept (issue 37). Where ours were never
// above the limit (soft equal to hard, 320 or less) they are taken again,
// as before: a program that closes all and then runs out of fds
// (crash.out-of-fds) still gets its report written there.
static void retake_reserve(int retake) {
    if (!retake) return;
    int saved = errno;
    if (fl_fd_limit_raised_past_high()) {
        if (retake & RETAKE_REPORT_DIR) fl_report_dir_on_demand();
        if (retake & RETAKE_RESERVE) fl_fd_reserve_stop_keeping();
        errno = saved;
        return;
    }
    if (retake & RETAKE_REPORT_DIR) fl_report_dir();
    if (retake & RETAKE_RESERVE) fl_fd_reserve_take();
    errno = saved;
}

int fl_fd_guard(int fd) {
    fd = fl_fd_move_high(fd);
    if (fd >= 0) slot_add(g_guarded, fd);
    return fd;
}

void fl_fd_unguard(int fd) {
    slot_take(g_guarded, fd);
    slot_take(g_hidden, fd);
}

void fl_fd_close(int fd) {
    fl_fd_unguard(fd);
    __close(fd);
}

static int guarded(unsigned fd) { return fd <= INT_MAX && fl_fd_slots_has(g_guarded, FL_FD_GUARD_MAX, (int)fd); }

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
    if (fl_unwind_pipe_close_deferred(fd, __builtin_return_address(0))) return 0;
    fl_fds_closing(fd);
    if (fd >= 0) fl_stderr_closed((unsigned)fd, (unsigned)fd);
    int reserve = let_go(fd);
    int r = __close(fd);
    retake_reserve(reserve);
    return r;
}

static int real_close_range(unsigned lo, unsigned hi, int flags) {
    static close_range_fn real;
    FL_NEXT_SLOT(real, "close_range")
    if (!real) real = (close_range_fn)dlsym(RTLD_NEXT, "close_range");
    return real ? real(lo, hi, flags) : (int)syscall(SYS_close_range, lo, hi, flags);
}

// Closes [lo, hi] in the pieces between guarded fds.
static int close_range_around(unsigned lo, unsigned hi, int flags) {
    // CLOSE_RANGE_CLOEXEC only marks them: ours are close-on-exec already.
    int reserve = flags & CLOSE_RANGE_CLOEXEC ? 0 : let_go_range(lo, hi);
    int r = 0;
    for (;;) {
        long g = lowest_guarded(lo, hi);
        if (g < 0) { r = real_close_range(lo, hi, flags); break; }
        if ((unsigned)g > lo && real_close_range(lo, (unsigned)g - 1, flags) != 0) { r = -1; break; }
        if ((unsigned)g == hi) break;
        lo = (unsigned)g + 1;
    }
    retake_reserve(reserve);
    return r;
}

FL_EXPORT int close_range(unsigned first, unsigned last, int flags) {
    if (first > last) return real_close_range(first, last, flags);  // EINVAL, as the kernel says
    if (!(flags & CLOSE_RANGE_CLOEXEC)) {
        fl_fds_closing_range(first, last);
        fl_stderr_closed(first, last);
    }
    return close_range_around(first, last, flags);
}

FL_EXPORT void closefrom(int lowfd) {
    unsigned lo = lowfd < 0 ? 0 : (unsigned)lowfd;
    fl_fds_closing_range(lo, UINT_MAX);
    fl_stderr_closed(lo, UINT_MAX);
    if (close_range_around(lo, UINT_MAX, 0) == 0) return;
    // No close_range (a kernel before 5.9): close one by one up to the limit.
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = lo; fd < (max > 0 ? max : 1024); fd++) close((int)fd);
}

static int real_dup2(int oldfd, int newfd) {
#ifdef SYS_dup2
    return (int)syscall(SYS_dup2, oldfd, newfd);
#else
    // aarch64 has only dup3, which refuses oldfd == newfd; dup2 then only
    // checks that the fd is open.
    if (oldfd == newfd) return fcntl(oldfd, F_GETFD) < 0 ? -1 : newfd;
    return (int)syscall(SYS_dup3, oldfd, newfd, 0);
#endif
}

// dup2 (`is_dup3` 0) or dup3 onto `newfd`: EBADF onto a guarded fd, and
// otherwise the real call, after any open of ours that may hold `newfd` for
// a moment (fd_transient.h); errno is the call's own.
static int dup_onto(int oldfd, int newfd, int is_dup3, int flags) {
    if (newfd >= 0 && oldfd != newfd && guarded((unsigned)newfd)) { errno = EBADF; return -1; }
    int reserve = oldfd != newfd && fcntl(oldfd, F_GETFD) >= 0 ? let_go(newfd) : 0;
    fl_fd_dup_begin();
    int r = is_dup3 ? (int)syscall(SYS_dup3, oldfd, newfd, flags) : real_dup2(oldfd, newfd);
    int saved = errno;
    fl_fd_dup_end();
    retake_reserve(reserve);
    errno = saved;
    return r;
}

FL_EXPORT int dup2(int oldfd, int newfd) {
    int r = dup_onto(oldfd, newfd, 0, 0);
    if (r >= 0) fl_stderr_copied(oldfd, r);
    if (r != oldfd) fl_fds_opened(r, FL_FD_DUP, __builtin_return_address(0));
    return r;
}

FL_EXPORT int dup3(int oldfd, int newfd, int flags) {
    int r = dup_onto(oldfd, newfd, 1, flags);
    if (r >= 0) fl_stderr_copied(oldfd, r);
    fl_fds_opened(r, FL_FD_DUP, __builtin_return_address(0));
    return r;
}

// libunwind (1.6) opens a pipe to test whether memory is readable, writes
// a byte of the tested memory into it, and on a failed read closes both
// numbers and opens a new pair (unwind_pipe.h). At a low number, a
// program's `exec 3>log` would get those bytes, or have its fd closed; so
// the pair is moved high and hidden, and let go after each of the agent's
// unwinds (fl_unwind_pipe_release). Out of fds, it is made with the limit
// raised for the call where it can be: without it libunwind cannot check a
// frame it must guess, and the crash report's stack ends there.
FL_EXPORT int pipe2(int fds[2], int flags) {
    if (!fl_unwind_pipe_is(fds, __builtin_return_address(0))) {
        int r = (int)syscall(SYS_pipe2, fds, flags);
        if (r == 0) fl_fds_opened_pair(fds, FL_FD_PIPE, __builtin_return_address(0));
        return r;
    }
    // Made in a pair of our own and stored once high: another thread's
    // walk reading libunwind's array never sees the low numbers that
    // fl_fd_hide closes.
    int made[2];
    fl_fd_open_begin();
    int r = (int)syscall(SYS_pipe2, made, flags);
    if (r != 0 && errno == EMFILE) {
        struct rlimit old;
        if (fl_fd_raise_begin(&old) == 0) {
            r = (int)syscall(SYS_pipe2, made, flags);
            fl_fd_raise_end(&old);
        }
    }
    if (r == 0) {
        made[0] = fl_fd_hide(made[0]);
        made[1] = fl_fd_hide(made[1]);
        fl_unwind_pipe_store(fds, made);
    }
    int saved = errno;
    fl_fd_open_end();
    errno = saved;
    return r;
}
