// The frame-pointer walk, inline: shim_stack_cache.c runs it (and checks
// a remembered walk by its rules) for every allocation and free stack with
// the default unwinder, shim_stack.c where libunwind must not run.
#ifndef SHIM_STACK_FP_H
#define SHIM_STACK_FP_H

#include "shim_block.h"
#include "shim_stack.h"
#include "shim_thread.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

/// 1 when the walk may go on from this thread's frame `fp` to the saved
/// frame pointer `next`: above it, and a whole frame record (saved frame
/// pointer, return address) below the top `hi` of the stack. (Written
/// without next + 16, which a garbage %rbp can overflow.)
static inline int shim_fp_next_ok(uintptr_t next, uintptr_t fp, uintptr_t hi) {
    return next > fp && next < hi && hi - next >= 16 && !(next & 7);
}

/// 1 when `ret` may be a return address. Not code: a garbage %rbp from a
/// frame without frame pointers led into data (a stack address, argv or
/// environment text, a non-canonical value), or into the shim's own code
/// (a stale frame record left below the program's frames by an earlier,
/// deeper call into the shim: C++ blocks showed `alloc_block` as the caller
/// of libstdc++ code).
static inline int shim_fp_ret_ok(uintptr_t ret) {
    return ret >= 4096 && ret < SHIM_USER_ADDR_END && !(ret >= shim_self.stack_lo && ret < shim_self.stack_data_hi) &&
           !(ret >= shim_text_lo && ret < shim_text_hi);
}

/// 1 when `ret` lies in a loaded object (the executable, a library), by
/// glibc's lock-free lookup (2.35+; the shim needs 2.34's symbols anyway). Asked of frame 1 only: a function without a
/// frame pointer that called the allocator with %rbp pointing at data in
/// its stack frame gave a "frame 1" that was a heap or mapping address
/// (`?` after frame 0 in every such leak group of ld.gold and the Swift
/// front end, each address a group of its own). Deeper frames are not
/// asked: a walk that got past frame 1 is in frame-pointer code, and code
/// made at run time (a JIT's, in no object) may sit there.
static inline int shim_fp_in_object(uintptr_t ret) {
    struct dl_find_object found;
    return _dl_find_object((void *)ret, &found) == 0;
}

/// 1 when the walk from `here`, the walking function's frame, goes past
/// frame 0: the bounds are known and it runs on the thread's own stack.
static inline int shim_fp_walkable(uintptr_t here) {
    return shim_thread_bounds() && here >= shim_self.stack_lo && here < shim_self.stack_hi;
}

// Walks saved frame pointers from `fp` (the exported allocator function's
// frame: frame 0 is the return address into the program). Every frame read
// lies between the current frame and the top of this thread's stack, which
// is mapped, so a garbage %rbp in code built without frame pointers ends
// the walk (or adds a bogus frame) but never faults. Returns the frame
// count (at least 1); `max` is at least 1. With `frames`, frames[i] is
// where the record of frame i lies (frames[0] = fp), and frames[0] is 0
// when the walk could not go past frame 0 (no bounds, not on the thread's
// own stack).
static inline __attribute__((always_inline)) int shim_walk_frame_pointers_at(uintptr_t fp, uintptr_t *pcs, uintptr_t *frames, int max) {
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    int n = 0;
    // The allocator's own frame is always valid: it has the return address.
    pcs[n++] = ((uintptr_t *)fp)[1];
    if (frames) frames[0] = 0;
    if (!shim_fp_walkable(here)) return n;
    if (frames) frames[0] = fp;
    uintptr_t hi = shim_self.stack_hi;
    uintptr_t next = ((uintptr_t *)fp)[0];
    while (n < max) {
        if (!shim_fp_next_ok(next, fp, hi)) break;
        fp = next;
        uintptr_t ret = ((uintptr_t *)fp)[1];
        if (!shim_fp_ret_ok(ret) || (n == 1 && !shim_fp_in_object(ret))) break;
        if (frames) frames[n] = fp;
        pcs[n++] = ret;
        next = ((uintptr_t *)fp)[0];
    }
    return n;
}

static inline __attribute__((always_inline)) int shim_walk_frame_pointers(uintptr_t fp, uintptr_t *pcs, int max) {
    return shim_walk_frame_pointers_at(fp, pcs, NULL, max);
}

#endif
