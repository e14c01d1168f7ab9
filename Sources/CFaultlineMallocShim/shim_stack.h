// Fast stack capture for allocation and free stacks: a frame-pointer walk
// kept inside the thread's stack, or libunwind's unw_backtrace (DWARF CFI
// with its per-thread trace cache; right through code built without frame
// pointers, several times slower). FAULTLINE_MALLOC_UNWINDER picks one.
#ifndef SHIM_STACK_H
#define SHIM_STACK_H

#include <stdint.h>

/// Loads libunwind when asked for (install time; may allocate). Returns 1
/// when unw_backtrace is usable.
int shim_stack_init(int want_libunwind);
/// Name of the unwinder in use for allocation stacks.
const char *shim_stack_method(void);

/// Captures the stack of the allocator call whose frame is `fp` (the
/// exported function's __builtin_frame_address(0)): frame 0 is the return
/// address into the program. Returns the frame count (at least 1).
/// The caller holds the guard.
int shim_stack_capture(uintptr_t fp, uintptr_t *pcs, int max);

#endif
