#include "unwind_pipe.h"
#include "fd_guard.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FL_EXPORT __attribute__((visibility("default")))

// libunwind's static `mem_validate_pipe`, once its pipe2 call showed it.
static int *_Atomic g_slots;
// libunwind walks in progress, the agent's and the malloc shim's: a pipe is
// closed only when none is (a walk that read a number from the array before
// it was set to -1 may still write into it).
static atomic_int g_walking;
// Pipes taken out of libunwind's array while a walk was in progress: closed
// by the last walk to end. A few, for releases that meet walks repeatedly.
#define FL_PENDING 8
static _Atomic int g_pending[FL_PENDING] = {-1, -1, -1, -1, -1, -1, -1, -1};
// How many of g_pending may be set: the common walk's end (nothing made,
// nothing pending) is two plain loads, a fence and this load.
static atomic_int g_npending;

int fl_unwind_pipe_is(int fds[2], const void *caller) {
    int *known = atomic_load(&g_slots);
    if (known) return fds == known;
    // The first call: dladdr (takes the loader's lock; at install, or at a
    // first validation on a thread that never unwound before).
    Dl_info info;
    if (!dladdr(caller, &info) || !info.dli_fname || !strstr(info.dli_fname, "/libunwind")) return 0;
    int *none = 0;
    atomic_compare_exchange_strong(&g_slots, &none, fds);
    return atomic_load(&g_slots) == fds;
}

// One slot of libunwind's array, read and written as the volatile ints
// they are to libunwind (plain loads and stores of its own code).
static int slot_get(int i) { return ((volatile int *)atomic_load(&g_slots))[i]; }
static void slot_set(int i, int v) { ((volatile int *)atomic_load(&g_slots))[i] = v; }

// Closes `fd` if it is still a hidden fd of ours: one the program closed
// (fd_guard.c let it go) may be the program's own by now.
static void close_ours(int fd) {
    if (fd < 0 || !fl_fd_hidden(fd)) return;
    fl_fd_unguard(fd);
    syscall(SYS_close, fd);  // raw: not the agent's own close interposer
}

static void close_pending(void) {
    if (atomic_load(&g_npending) == 0) return;
    for (int i = 0; i < FL_PENDING; i++) {
        int fd = atomic_exchange(&g_pending[i], -1);
        if (fd < 0) continue;
        atomic_fetch_sub(&g_npending, 1);
        close_ours(fd);
    }
}

static void add_pending(int fd) {
    if (fd < 0) return;
    for (int i = 0; i < FL_PENDING; i++) {
        int none = -1;
        if (atomic_compare_exchange_strong(&g_pending[i], &none, fd)) { atomic_fetch_add(&g_npending, 1); return; }
    }
    close_ours(fd);  // full: closed at once (a walk then fails one check)
}

void fl_unwind_pipe_release(void) {
    if (atomic_load(&g_slots)) {
        int a = slot_get(0), b = slot_get(1);
        if (a >= 0 || b >= 0) {
            // -1 first: a walk starting now makes its own pair rather than
            // use numbers being closed.
            slot_set(0, -1);
            slot_set(1, -1);
            add_pending(a);
            add_pending(b);
        }
    }
    // Pairs with the walk counter's increment: a walk counted after this
    // load reads the -1s stored above.
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load(&g_walking) == 0) close_pending();
}

void fl_unwind_pipe_forget(int fd) {
    if (fd < 0 || !atomic_load(&g_slots)) return;
    for (int i = 0; i < 2; i++)
        if (slot_get(i) == fd) slot_set(i, -1);
}

FL_EXPORT void faultline_unwind_walk_begin(void) { atomic_fetch_add(&g_walking, 1); }

FL_EXPORT void faultline_unwind_walk_end(void) {
    if (atomic_fetch_sub(&g_walking, 1) == 1) fl_unwind_pipe_release();
}
