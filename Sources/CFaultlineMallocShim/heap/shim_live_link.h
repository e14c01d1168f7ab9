// The live lists' links, tagged: each link's two words carry, in their top
// 16 bits (user space is 47 bits), halves of a 32-bit hash of the link's
// address and both pointers. A link whose tag holds was written by the
// shim, so the blocks it names are live members of its list, mapped while
// the list's lock is held, and are read directly; one whose tag fails (an
// underflow or overflow into it) names blocks that are read only through
// the kernel (shim_safe_read). Before the tags every neighbour outside the
// arena (a glibc block) was read through the kernel: one process_vm_readv
// at most frees of python3's big blocks (19 000 in a 0.6 s run).
#ifndef SHIM_LIVE_LINK_H
#define SHIM_LIVE_LINK_H

#include "shim_block.h"

#include <stdint.h>

#define SHIM_LINK_PTR_MASK ((1ull << 48) - 1)

static inline uint32_t shim_link_tag(const shim_link *at, uintptr_t prev, uintptr_t next) {
    uint64_t x = ((uintptr_t)at >> 4) * 0x9E3779B97F4A7C15ull;
    x ^= (prev ^ 0x5bd1e995u) * 0xC2B2AE3D27D4EB4Full;
    x = (x ^ (x >> 29)) + next * 0x165667B19E3779F9ull;
    x ^= x >> 32;
    return (uint32_t)x | 1u;  // never 0: a zeroed link never holds
}

/// The pointers of link copy `l` (tag bits cleared).
static inline shim_block *shim_link_prev(const shim_link *l) { return (shim_block *)((uintptr_t)l->prev & SHIM_LINK_PTR_MASK); }
static inline shim_block *shim_link_next(const shim_link *l) { return (shim_block *)((uintptr_t)l->next & SHIM_LINK_PTR_MASK); }

/// 1 when link copy `l`, read from address `at`, carries the tag the shim wrote.
static inline int shim_link_holds_at(const shim_link *l, const shim_link *at) {
    uintptr_t p = (uintptr_t)l->prev, n = (uintptr_t)l->next;
    uint32_t tag = (uint32_t)(p >> 48) | (uint32_t)(n >> 48) << 16;
    return tag == shim_link_tag(at, p & SHIM_LINK_PTR_MASK, n & SHIM_LINK_PTR_MASK);
}
static inline int shim_link_holds(const shim_link *l) { return shim_link_holds_at(l, l); }

/// Writes both pointers of link `l` with their tag.
static inline void shim_link_put(shim_link *l, const shim_block *prev, const shim_block *next) {
    uint32_t tag = shim_link_tag(l, (uintptr_t)prev, (uintptr_t)next);
    l->prev = (shim_block *)((uintptr_t)prev | (uintptr_t)(tag & 0xffffu) << 48);
    l->next = (shim_block *)((uintptr_t)next | (uintptr_t)(tag >> 16) << 48);
}

/// Changes one pointer of link `l`. A link whose tag did not hold keeps
/// failing (the new word is written untagged): a rewrite must not vouch for
/// the other, overwritten, word.
static inline void shim_link_set_prev(shim_link *l, const shim_block *prev) {
    if (shim_link_holds(l)) shim_link_put(l, prev, shim_link_next(l));
    else l->prev = (shim_block *)prev;
}
static inline void shim_link_set_next(shim_link *l, const shim_block *next) {
    if (shim_link_holds(l)) shim_link_put(l, shim_link_prev(l), next);
    else l->next = (shim_block *)next;
}

#endif
