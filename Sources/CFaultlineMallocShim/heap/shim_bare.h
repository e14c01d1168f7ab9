// Headerless blocks: the shim's allocator with every check off. When the
// options leave nothing for a header to do (no quarantine, fill, scribble,
// stacks or leak tracking; FAULTLINE_GUARD=sample:N's unsampled blocks are
// so too), a small block is an arena slot handed out as it is, and free
// gives it straight back to the thread's cache: no header written at
// malloc, none read at free, no red zone. The slot's own address says it
// is one (shim_arena_at_slot_start: a block with a header points past its
// header), so blocks made before the decision, big blocks and over-aligned
// ones keep their headers and checks and mix freely with these.
//
// What that costs in detection, and why it is worth it: see
// docs/benchmarks.md, "Round 4: the every-check-off core".
#ifndef SHIM_BARE_H
#define SHIM_BARE_H

#include "shim_arena.h"

#include <stddef.h>
#include <stdint.h>

/// 0 until decided (before the constructor is done: headers), 1 when
/// small blocks are headerless, 2 when not.
extern int shim_bare_state;

/// 1 when FAULTLINE_GUARD=sample:N picks blocks among the headerless
/// ones (set with shim_bare_state).
extern int shim_bare_sampling;

/// Decides shim_bare_state from the options, once the constructor is
/// done (0 before: ask again later). Returns 1 when headerless.
int shim_bare_decide(void);

/// 1 when small blocks are headerless now.
static inline int shim_bare_on(void) {
    int st = shim_bare_state;
    if (__builtin_expect(st != 0, 1)) return st == 1;
    return shim_bare_decide();
}

/// 1 when `p` is a headerless block (an arena slot's start).
static inline int shim_bare_owns(const void *p) {
    return shim_arena_owns(p) && shim_arena_at_slot_start(p);
}

/// A headerless block of `size` bytes (zeroed when `zero`), or NULL when it
/// does not fit the arena: the caller then takes the usual path.
static inline void *shim_bare_alloc(size_t size, int zero) {
    int fresh;
    void *p = shim_arena_alloc(size, &fresh);
    if (!p || fresh) return p;  // never used: zeros
    // The released mark goes (shim_arena_free_bare): the line is in cache
    // from the list's link, just read.
    if (zero) __builtin_memset(p, 0, size > 16 ? size : 16);
    else __builtin_memset((char *)p + 8, 0, 8);
    return p;
}

/// A double free of headerless block `p` found by `operation` ("free",
/// "realloc", …): reported (shim_bare.c).
void shim_bare_double_free(const void *p, const char *operation);

/// Frees headerless block `p` (as `operation`).
static inline void shim_bare_free(void *p, const char *operation) {
    if (__builtin_expect(shim_arena_free_bare(p) != 0, 0)) shim_bare_double_free(p, operation);
}

/// Bytes usable in headerless block `p`: its slot.
static inline size_t shim_bare_usable(const void *p) { return shim_arena_block_size(p); }

#endif
