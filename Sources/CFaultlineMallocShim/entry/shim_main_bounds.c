// The main thread's stack bounds without pthread_getattr_np
// (shim_main_bounds.h).
//
// For the main thread glibc reads /proc/self/maps line by line through
// stdio (its own mallocs included) to find the mapping that holds
// __libc_stack_end: about 0.2 ms, paid at the first allocation whose stack
// is recorded, in every process that allocates (3.9 % of a /bin/true's
// samples with agent and shim, issue 29 round 4). What it computes needs
// only the end of that mapping, found here with mincore(2) a page at a
// time above the stack's top (argv, the environment and the aux vector lie
// there), and the stack limit. It also caps the size at the end of the
// mapping below, which Linux places at least 128 MiB under the stack: with
// a limit up to that the cap never applies, and above it (or unlimited)
// the bounds are left to glibc. One thing moves: glibc's lazy binding of
// the shim's call to pthread_getattr_np (about 3 KiB of stack for the
// resolver) now happens on the first other thread's first recorded
// allocation, not the main thread's (leaks.small-stack-libunwind: a
// 16 KiB stack, after the warm-up stopped recording, shim_untracked.c).
#include "shim_main_bounds.h"
#include "shim_thread.h"
#include "page_size.h"

#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

extern void *__libc_stack_end;

/// Pages probed above the stack's top for the mapping's end (1 MiB).
#define MAX_PROBES 256
/// The smallest gap Linux leaves between the stack and the mappings below.
#define MIN_GAP (128ul << 20)

void shim_main_bounds_fill(void) {
    if (shim_self.bounds_state != 0 || shim_tid() != (uint32_t)getpid() || !__libc_stack_end) return;
    struct rlimit rl;
    if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > MIN_GAP) return;
    uintptr_t page = fl_page_size();
    uintptr_t top = ((uintptr_t)__libc_stack_end & -page) + page;
    uintptr_t to = top;
    unsigned char in_core;
    int probes = 0;
    while (probes < MAX_PROBES && mincore((void *)to, page, &in_core) == 0) to += page, probes++;
    if (probes == MAX_PROBES) return;  // no end in sight: not the layout this knows
    if ((uintptr_t)rl.rlim_cur <= to - top) return;
    uintptr_t size = ((uintptr_t)rl.rlim_cur - (to - top)) & -page;
    shim_self.stack_lo = top - size;
    shim_self.stack_hi = top;
    // As shim_thread_bounds_slow: a quarter of the limit for what lies above.
    shim_self.stack_data_hi = top + size / 4;
    shim_self.bounds_state = 2;
}
