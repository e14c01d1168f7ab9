// The shim's allocator: blocks with a header over glibc, 0xAA fill, 0x55
// scribble and quarantine on free, double and invalid free checks. `fp` is
// the exported entry point's frame address, where stacks start.
#ifndef SHIM_HEAP_H
#define SHIM_HEAP_H

#include "shim_block.h"

#include <stddef.h>
#include <stdint.h>

/// What the shim is doing.
enum {
    SHIM_MODE_DETECT = 0,   ///< quarantine and checks (the default, also before init)
    SHIM_MODE_PASS = 1,     ///< stepped aside: calls go to the next allocator
};
extern int shim_mode;
/// 1 once the constructor has run (stacks and reports available).
extern int shim_ready;

/// The `align` of malloc, calloc, realloc and new: malloc's 16, or for a
/// guarded block FAULTLINE_GUARD_ALIGN (an explicit alignment is kept).
#define SHIM_ALIGN_MALLOC 0

/// Allocates `size` bytes aligned to `align` (a power of two, or
/// SHIM_ALIGN_MALLOC); `zero` for
/// calloc; `kind` (SHIM_KIND_*) is how it must be released, with a `new`
/// block's alignment code (shim_new_align_code) above it: SHIM_KIND_WITH_ALIGN.
/// Sets errno and returns NULL on failure.
void *shim_alloc(size_t size, size_t align, int zero, unsigned kind, uintptr_t fp);
/// `kind` and the `new_align` code a block of shim_alloc gets, in one word:
/// the header is whole before any other thread can read it (the exit check).
#define SHIM_KIND_WITH_ALIGN(kind, code) ((kind) | ((code) & 63u) << 2)
/// Frees (quarantines) `p`, released as `kind` (SHIM_KIND_MALLOC: free,
/// SHIM_KIND_NEW: delete, SHIM_KIND_NEW_ARRAY: delete[]); reports double
/// and invalid frees, and a block allocated as another kind
/// (alloc_dealloc_mismatch), which is then freed all the same.
void shim_free(void *p, unsigned kind, uintptr_t fp);
/// shim_free for C++ delete: `size` is what a sized form was given (0:
/// unsized) and `align` what an aligned form was given (0: unaligned). A
/// block of `kind` that the shim's new made with another size or
/// alignment is a new_delete_type_mismatch, which is reported and freed.
void shim_delete(void *p, unsigned kind, size_t size, size_t align, uintptr_t fp);
/// Reports a live block `p` allocated as another kind than `kind` (an
/// alloc_dealloc_mismatch) without freeing it: for a C++ delete that hands
/// the block on to the program's own operator delete.
void shim_check_release(void *p, unsigned kind);
/// Looks up which global C++ operators the program defines itself
/// (shim_cxx_new.c): from the constructor, so that no `new` takes the
/// loader's lock later (a thread may hold it for ever in a constructor).
void shim_cxx_init(void);
/// Looks up the two versions of libc's realpath that shim_libc_callers.c
/// wraps (constructor: a lookup on a wrapper's first call could wait for
/// the loader's lock; the other wrappers' are FL_NEXT_SLOTs).
void shim_libc_callers_init(void);
/// realloc: always moves, so the old block goes to quarantine.
void *shim_realloc(void *p, size_t size, uintptr_t fp);
/// The size the program asked for, or 0 for a pointer that is not a live block.
size_t shim_usable_size(const void *p);

/// The state of the header in front of `p` (SHIM_LIVE, …) or 0 when `p`
/// does not look like a block of ours. Never faults on pointers outside
/// the range the shim has handed out.
uint32_t shim_classify(const void *p);
/// 1 when the header at `a` would lie in the main heap above its current
/// top: memory glibc has given back to the kernel since it held blocks.
int shim_heap_trimmed(uintptr_t a);

/// 1 when [a, a + n) lies in glibc's main heap as it is now (between the
/// break before glibc's first growth and the current break).
int shim_heap_holds(uintptr_t a, size_t n);

/// The largest block (header included) the shim has had from glibc's heap
/// once one was bigger than SHIM_FIND_WINDOW, else 0: how far back from an
/// address in the heap the header of a block holding it can be.
size_t shim_heap_largest_block(void);

/// Lowest and highest address a block can have (glibc blocks ever handed
/// out and the arena's reserved range; for the fault describer).
void shim_heap_range(uintptr_t *lo, uintptr_t *hi);

#endif
