#include "unwind_pipe.h"
#include "fd_guard.h"
#include "fd_slots.h"

#include <dlfcn.h>
#include <link.h>
#include <fcntl.h>
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
// Libunwind walks in progress on this thread (nested by a signal handler's).
// initial-exec: reading it from the close interposer never allocates.
static __thread int t_walking __attribute__((tls_model("initial-exec")));
// Pipes taken out of libunwind's array, or closed by libunwind, while a walk
// was in progress: closed by the last walk to end. Room for every thread of
// a hang report's sample reopening at once (two numbers each).
#define FL_PENDING 32
static atomic_int g_pending[FL_PENDING];  // fd + 1, 0 when free
// The numbers the pipe2 interposer made for libunwind and not yet closed
// (fd + 1, 0 when free).
#define FL_MADE 32
static atomic_int g_made[FL_MADE];
// How many of g_pending may be set: the common walk's end (nothing made,
// nothing pending) is two plain loads, a fence and this load.
static atomic_int g_npending;

// libunwind's code, found with its array: a close called from there is its
// reopen's, whoever's walk it is in.
static _Atomic uintptr_t g_code_lo, g_code_hi;

static int find_code(struct dl_phdr_info *info, size_t size, void *caller) {
    (void)size;
    uintptr_t pc = (uintptr_t)caller;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || pc < lo || pc >= hi) continue;
        atomic_store(&g_code_lo, lo);
        atomic_store(&g_code_hi, hi);
        return 1;
    }
    return 0;
}

// Set once the program is seen walking with libunwind itself (a pipe made
// or closed by libunwind outside the agent's walks): from then on the pair
// is kept, as libunwind alone keeps it. Letting it go made every walk of
// the program's reopen it at once, and libunwind's reopen is not safe
// against another (crash.unwinds-at-once[mixed]).
static atomic_int g_program_walks;
// Set at the first release: libunwind's first pipe (made as it loads, in
// no walk) is no sign of the program's walks; one made after a release is.
static atomic_int g_released;

static int from_libunwind(const void *caller) {
    uintptr_t pc = (uintptr_t)caller;
    return pc >= atomic_load(&g_code_lo) && pc < atomic_load(&g_code_hi);
}

int fl_unwind_pipe_is(int fds[2], const void *caller) {
    int *known = atomic_load(&g_slots);
    if (known) return fds == known;
    // The first call: dladdr (takes the loader's lock; at install, or at a
    // first validation on a thread that never unwound before).
    Dl_info info;
    if (!dladdr(caller, &info) || !info.dli_fname || !strstr(info.dli_fname, "/libunwind")) return 0;
    if (!atomic_load(&g_code_hi)) dl_iterate_phdr(find_code, (void *)caller);
    int *none = 0;
    atomic_compare_exchange_strong(&g_slots, &none, fds);
    return atomic_load(&g_slots) == fds;
}

// One slot of libunwind's array (plain ints to libunwind's own code),
// exchanged atomically against the pipe2 interposer's stores.
static int slot_exchange(int i, int v) { return atomic_exchange((_Atomic int *)&atomic_load(&g_slots)[i], v); }

static void made_forget(int fd) { fl_fd_slots_take(g_made, FL_MADE, fd); }

// Closes `fd` if it is still a hidden fd of ours: one the program closed
// (fd_guard.c let it go) may be the program's own by now.
static void close_ours(int fd) {
    if (fd < 0 || !fl_fd_hidden(fd)) return;
    made_forget(fd);
    fl_fd_unguard(fd);
    syscall(SYS_close, fd);  // raw: not the agent's own close interposer
}

static int write_end(int fd) { return (syscall(SYS_fcntl, fd, F_GETFL) & O_ACCMODE) == O_WRONLY; }

// Write ends first: a walk the agent does not count (the program's own use
// of libunwind) that loaded a write end before this then gets EBADF, not
// the SIGPIPE of a pipe whose read end went first.
static void close_pending(void) {
    if (atomic_load(&g_npending) == 0) return;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < FL_PENDING; i++) {
            int v = atomic_load(&g_pending[i]);
            if (v == 0 || (pass == 0 && !write_end(v - 1))) continue;
            if (!atomic_compare_exchange_strong(&g_pending[i], &v, 0)) continue;
            atomic_fetch_sub(&g_npending, 1);
            close_ours(v - 1);
        }
}

// 1 when `fd` is pending now (it may have been already: libunwind closes
// the same number twice as it reopens); 0 when the list is full.
static int add_pending(int fd) {
    if (fd < 0 || fl_fd_slots_has(g_pending, FL_PENDING, fd)) return 1;
    if (!fl_fd_slots_put(g_pending, FL_PENDING, fd)) return 0;
    atomic_fetch_add(&g_npending, 1);
    return 1;
}

// A number taken out of libunwind's array: closed once no walk is in
// progress (at once when the list is full).
static void retire(int fd) {
    if (fd >= 0 && !add_pending(fd)) close_ours(fd);
}

void fl_unwind_pipe_store(int fds[2], const int made[2]) {
    for (int i = 0; i < 2; i++) {
        if (made[i] >= 0) fl_fd_slots_put(g_made, FL_MADE, made[i]);
        // Exchanged: two walks that reopen at once both store a pair, and
        // the one overwritten was held by no one (a leak of two fds each
        // time, in libunwind alone too).
        int old = atomic_exchange((_Atomic int *)&fds[i], made[i]);
        if (old >= 0 && old != made[i] && fl_fd_slots_has(g_made, FL_MADE, old)) retire(old);
    }
    // Nothing closed here: a reopen outside the agent's walks (the
    // program's own) may race another, whose end no counter marks; what it
    // retired waits for the end of the agent's next walk.
    if (t_walking == 0 && atomic_load(&g_released)) atomic_store(&g_program_walks, 1);
}

int fl_unwind_pipe_close_deferred(int fd, const void *caller) {
    if (fd < 0 || (t_walking == 0 && !from_libunwind(caller))) return 0;
    if (!fl_fd_slots_has(g_made, FL_MADE, fd) || !fl_fd_hidden(fd)) return 0;
    if (t_walking == 0) atomic_store(&g_program_walks, 1);
    return add_pending(fd);
}

void fl_unwind_pipe_release(void) {
    if (atomic_load(&g_slots) && !atomic_load(&g_program_walks)) {
        atomic_store(&g_released, 1);
        // -1 first: a walk starting now makes its own pair rather than use
        // numbers being closed.
        retire(slot_exchange(0, -1));
        retire(slot_exchange(1, -1));
    }
    // Pairs with the walk counter's increment: a walk counted after this
    // load reads the -1s stored above.
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load(&g_walking) == 0) close_pending();
}

void fl_unwind_pipe_forget(int fd) {
    if (fd < 0 || !atomic_load(&g_slots)) return;
    made_forget(fd);
    for (int i = 0; i < 2; i++) {
        int expected = fd;
        atomic_compare_exchange_strong((_Atomic int *)&atomic_load(&g_slots)[i], &expected, -1);
    }
}

FL_EXPORT void faultline_unwind_walk_begin(void) {
    t_walking++;
    atomic_fetch_add(&g_walking, 1);
}

FL_EXPORT void faultline_unwind_walk_end(void) {
    t_walking--;
    if (atomic_fetch_sub(&g_walking, 1) == 1) fl_unwind_pipe_release();
}
