// What the agent allocates for its own sake through glibc: the shim
// records no stack for it, and leaves what holds no pointer of the
// program's off the live lists (issue 29, start-up rounds 4 and 5).
//
// Only for blocks that hold no pointer to the program's: a block off the
// lists is neither a live block nor a root to the leak scan, so whatever
// it points to looks lost. The whole install was tried: setenv's copy of
// the environment then held the program's later strings, and every bash
// subshell under crash.low-fd-limit-crash reported them lost at exit. So
// it is the agent's libunwind warm-up of a thread only, whose DTV entry glibc
// mallocs (libunwind's TLS, its trace cache mmap'd): recording its stack
// was a libunwind walk in every process.
#include "interpose_next.h"
#include "shim_thread.h"

/// From the agent (unwinder.c, fl_unwinder_warm_thread): `on` 1 before a step whose allocations are
/// its own, 0 after, on the same thread; between them that thread's
/// allocations are made as the shim's own (its reentrancy depth,
/// shim_thread.h). An unmatched 0 is ignored.
FL_EXPORT void faultline_shim_untracked(int on);
void faultline_shim_untracked(int on) {
    if (on) shim_self.depth++;
    else if (shim_self.depth > 0) shim_self.depth--;
}

/// From the agent (agent.c, install): `on` 1 before its install, 0 after,
/// on the same thread; between them that thread's blocks are the
/// program's like any (on the live lists and read by the leak scan: the
/// FILE fopencookie makes for the stderr tee points to the buffer stdio
/// mallocs later) but recorded without a stack. An unmatched 0 is ignored.
FL_EXPORT void faultline_shim_stackless(int on);
void faultline_shim_stackless(int on) {
    if (on) shim_self.stackless++;
    else if (shim_self.stackless > 0) shim_self.stackless--;
}
