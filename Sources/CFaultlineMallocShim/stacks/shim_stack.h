// Fast stack capture for allocation and free stacks: a frame-pointer walk
// kept inside the thread's stack, or libunwind's unw_backtrace (DWARF CFI
// with its per-thread trace cache; right through code built without frame
// pointers, several times slower, so shim_stack_cache.c caches its stacks
// with the slots a libgcc walk finds). FAULTLINE_MALLOC_UNWINDER picks one.
#ifndef SHIM_STACK_H
#define SHIM_STACK_H

#include <stdint.h>

/// Loads libunwind for the SHIM_UNWIND_* `mode` that needs it (install
/// time; may allocate). Returns 1 when unw_backtrace is usable.
int shim_stack_init(int mode);
/// Resolves glibc's dl_iterate_phdr for the shim's wrapper, and finds the
/// shim's own code and libc's (constructor).
void shim_stack_resolve(void);
/// The shim's executable segment, [lo, hi): no return address above an
/// allocator's frame can lie in it (0, 0 until found).
extern uintptr_t shim_text_lo, shim_text_hi;
/// libc's executable segment, [lo, hi) (0, 0 until found): an allocation
/// made from it inside a wrapped libc call is that call's
/// (shim_libc_callers.c); one from anywhere else (a signal handler, a
/// callback such as fopencookie's) is not.
extern uintptr_t shim_libc_text_lo, shim_libc_text_hi;

/// 1 when `pc` lies in libc's code.
static inline int shim_in_libc(uintptr_t pc) { return pc >= shim_libc_text_lo && pc < shim_libc_text_hi; }
/// 1 once libunwind is loaded for every allocation stack (set before any is
/// recorded).
extern int shim_stack_libunwind;
/// 1 once libunwind is loaded for the stacks a frame-pointer walk cannot
/// take past frame 0 (auto: the code that called the allocator keeps no
/// frame pointers); with both 0, every stack is a frame-pointer walk.
extern int shim_stack_libunwind_fallback;
/// Name of the unwinder in use for allocation stacks.
const char *shim_stack_method(void);

/// Captures the stack of the allocator call whose frame is `fp` (the
/// exported function's __builtin_frame_address(0)): frame 0 is the return
/// address into the program. Returns the frame count (at least 1).
/// The caller holds the guard.
int shim_stack_capture(uintptr_t fp, uintptr_t *pcs, int max);

/// A slot offset shim_stack_capture_slots could not find.
#define SHIM_STACK_SLOT_UNKNOWN UINT32_MAX
/// 1 when libunwind is in use and shim_stack_capture_slots can work.
int shim_stack_has_slots(void);
/// Walks the stack of the allocator call at `fp` with libgcc's unwinder,
/// which also says where each return address lies: `slots[i]` is the
/// offset from the program's stack pointer at the call (fp + 16) of the
/// word holding `pcs[i]` (0 for the first), or SHIM_STACK_SLOT_UNKNOWN.
/// Returns the frame count, 0 when the walk never reached `fp`'s caller.
/// The frames may differ from libunwind's: callers compare them. The
/// caller holds the guard.
int shim_stack_capture_slots(uintptr_t fp, uintptr_t *pcs, uint32_t *slots, int max);

#endif
