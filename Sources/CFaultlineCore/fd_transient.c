#include "fd_transient.h"

#include "fd_high.h"
#include "sigsafe.h"

#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>

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

int fl_open_high(const char *path, int flags) {
    fl_fd_open_begin();
    int fd = fl_fd_move_high(open(path, flags));
    fl_fd_open_end();
    return fd;
}

int fl_openat_high(int dir, const char *name, int flags, mode_t mode) {
    fl_fd_open_begin();
    int fd = fl_fd_move_high(openat(dir, name, flags, mode));
    fl_fd_open_end();
    return fd;
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
