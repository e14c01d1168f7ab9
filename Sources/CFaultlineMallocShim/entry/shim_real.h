// The allocators under the shim. Blocks with a header come from the shim's
// arena (shim_arena.h) or, when too big or over-aligned for it, from glibc's
// __libc_* entry points (exported for exactly this purpose; unlike
// dlsym(RTLD_NEXT) they need no bootstrap allocation). When the shim steps
// aside, plain calls go to another allocator instead (another interposer,
// valgrind's redirection, or glibc): see shim_next_fns and shim_top_fns.
#ifndef SHIM_REAL_H
#define SHIM_REAL_H

#include "shim_arena.h"
#include "shim_block.h"
#include "shim_free_slot.h"
#include "shim_glibc.h"
#include "shim_protect.h"
#include "shim_redzone.h"
#include "shim_released.h"
#include "shim_unmapped.h"

#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void __libc_free(void *);

/// An allocator's entry points, for passing calls through once the shim
/// stepped aside.
typedef struct shim_next {
    void *(*malloc)(size_t);
    void (*free)(void *);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    int (*posix_memalign)(void **, size_t, size_t);
    void *(*aligned_alloc)(size_t, size_t);
    void *(*memalign)(size_t, size_t);
    void *(*valloc)(size_t);
    void *(*pvalloc)(size_t);
    size_t (*malloc_usable_size)(void *);
} shim_next;

/// Bits naming the shim's exported entry points (shim_top_lacks).
enum {
    SHIM_ENTRY_MALLOC = 1u << 0,
    SHIM_ENTRY_FREE = 1u << 1,
    SHIM_ENTRY_CALLOC = 1u << 2,
    SHIM_ENTRY_REALLOC = 1u << 3,
    SHIM_ENTRY_REALLOCARRAY = 1u << 4,
    SHIM_ENTRY_POSIX_MEMALIGN = 1u << 5,
    SHIM_ENTRY_ALIGNED_ALLOC = 1u << 6,
    SHIM_ENTRY_MEMALIGN = 1u << 7,
    SHIM_ENTRY_VALLOC = 1u << 8,
    SHIM_ENTRY_PVALLOC = 1u << 9,
    SHIM_ENTRY_USABLE_SIZE = 1u << 10,
    SHIM_ENTRY_CFREE = 1u << 11,
};

/// The definitions after the shim in link order (RTLD_NEXT): where a call
/// that reached one of the shim's entry points goes when the allocator
/// before the shim defines it too, that is, when the program called the
/// shim (it comes first) or a wrapper before it (heaptrack) forwarded the
/// call. aligned_alloc, valloc and pvalloc are NULL unless the next
/// malloc's own object defines them (glibc's pvalloc would hand out a glibc
/// block to a program whose free is jemalloc's); callers fall back to memalign.
extern shim_next shim_next_fns;
/// The allocator whose malloc the program calls when it comes before the
/// shim in link order (jemalloc preloaded first); shim_next_fns when the
/// shim comes first. For the entry points it lacks (shim_top_lacks): the
/// program's calls to those reach the shim, and must end in that allocator,
/// not in glibc under it. Optional functions it lacks are NULL.
extern shim_next shim_top_fns;
/// SHIM_ENTRY_* bits of the entry points the allocator before the shim
/// does not define (0 when the shim comes first).
extern unsigned shim_top_lacks;
/// Resolves shim_next_fns, shim_top_fns and shim_top_lacks with dlsym.
/// Returns 0, or -1 when a required function is missing.
int shim_next_resolve(void);

/// Returns a block's real allocation to the arena or glibc (keeping a
/// copy of its header when glibc is going to unmap it, or when it is a
/// heap block big enough that glibc would have mapped it without the
/// shim: see shim_unmapped.h).
static inline void shim_real_free_block(shim_block *b) {
    void *real = shim_block_real(b);
    if (shim_arena_owns(real)) {
        shim_free_slot_mark(real);  // checked when the slot is handed out again
        shim_arena_free(real);
        return;
    }
    // Pages that cannot be made accessible again are never given back.
    if (__builtin_expect(b->free_tid & SHIM_FREE_PROTECTED, 0) && !shim_protect_release(b)) return;
    shim_released_note(b);
    if (shim_glibc_chunk_is_mapped(real)) {
        shim_unmapped_note(b);
        shim_glibc_mapped_freeing(shim_glibc_chunk_size(real));
    } else if (b->size >= SHIM_UNMAPPED_KEEP_FROM) {
        shim_unmapped_note(b);
    }
    __libc_free(real);
}

/// Bytes a block really occupies, as charged against the quarantine budget:
/// its arena class size, or its glibc chunk (request plus glibc's 8-byte
/// chunk header, rounded to 16, at least 32).
static inline uint64_t shim_block_cost(const shim_block *b) {
    const void *real = shim_block_real(b);
    if (shim_arena_owns(real)) return shim_arena_block_size(real);
    uint64_t chunk = (b->size + shim_redzone_span(b->size) + SHIM_HEADER_SIZE + b->align_off + 8 + 15) & ~(uint64_t)15;
    return chunk < 32 ? 32 : chunk;
}

#endif
