// The allocators under the shim. Blocks with a header come from the shim's
// arena (shim_arena.h) or, when too big or over-aligned for it, from glibc's
// __libc_* entry points (exported for exactly this purpose; unlike
// dlsym(RTLD_NEXT) they need no bootstrap allocation). When the shim steps
// aside, plain calls go to the next definition in the link order instead
// (another interposer, valgrind's redirection, or glibc).
#ifndef SHIM_REAL_H
#define SHIM_REAL_H

#include "shim_arena.h"
#include "shim_block.h"
#include "shim_unmapped.h"

#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void __libc_free(void *);

/// The next allocator in link order (resolved when stepping aside).
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

/// Valid once shim_next_resolve returned 0.
extern shim_next shim_next_fns;
/// Resolves shim_next_fns with dlsym(RTLD_NEXT). Returns 0 or -1.
int shim_next_resolve(void);

/// Returns a block's real allocation to the arena or glibc (keeping a
/// copy of its header when glibc is going to unmap it).
static inline void shim_real_free_block(shim_block *b) {
    void *real = shim_block_real(b);
    if (shim_arena_owns(real)) { shim_arena_free(real); return; }
    if (shim_glibc_chunk_is_mapped(real)) shim_unmapped_note(b);
    __libc_free(real);
}

/// Bytes a block really occupies, as charged against the quarantine budget:
/// its arena class size, or its glibc chunk (request plus glibc's 8-byte
/// chunk header, rounded to 16, at least 32).
static inline uint64_t shim_block_cost(const shim_block *b) {
    const void *real = shim_block_real(b);
    if (shim_arena_owns(real)) return shim_arena_block_size(real);
    uint64_t chunk = (b->size + SHIM_HEADER_SIZE + b->align_off + 8 + 15) & ~(uint64_t)15;
    return chunk < 32 ? 32 : chunk;
}

#endif
