// Red zones: every block's bytes from its end to the end of its real
// allocation (the rest of its arena slot; for a glibc block, to the next
// 16-byte boundary and 16 bytes to 2 KiB more, by its size) hold SHIM_REDZONE_BYTE. They are
// verified when the block is freed or reallocated, when it leaves the
// quarantine, at exit, and near a crash's fault address: a change is a
// heap_buffer_overflow (or, when it reaches only the far end of the zone,
// the next block's heap_buffer_underflow).
#ifndef SHIM_REDZONE_H
#define SHIM_REDZONE_H

#include "shim_arena.h"
#include "shim_block.h"
#include "shim_guard.h"
#include "shim_pattern.h"

#include <stddef.h>
#include <stdint.h>

/// The red zone's pattern: neither the fill nor the scribble, and as a
/// pointer (0xfbfb…) an address no program maps.
#define SHIM_REDZONE_BYTE 0xFB
#define SHIM_REDZONE_WORD 0xFBFBFBFBFBFBFBFBull

/// The red zone past the 16-byte rounding of a block of `size` that glibc
/// serves: 16 bytes up to 1 KiB, then a 32nd of the size's power of two, at
/// most 2 KiB (AddressSanitizer's adaptive zones, about 3 % of the block). A
/// write that jumps 32 bytes past a 4 KiB block lands in the zone, not in
/// glibc's next chunk header, whose check would abort where the program
/// without Faultline ran on (mimalloc-bench's 32_byte_overflow).
static inline size_t shim_redzone_far(size_t size) {
    if (size <= 1024) return 16;
    size_t z = ((size_t)1 << (63 - __builtin_clzll((unsigned long long)size))) / 32;
    return z > 2048 ? 2048 : z;
}

/// Bytes a block of `size` needs past its end for its red zone: to the next
/// 16-byte boundary and shim_redzone_far more (16 to 2063).
static inline size_t shim_redzone_span(size_t size) { return ((size + 15) & ~(size_t)15) + shim_redzone_far(size) - size; }

/// One past the red zone's last byte.
static inline uintptr_t shim_redzone_end(const shim_block *b) {
    const void *real = shim_block_real(b);
    if (shim_arena_owns(real)) return (uintptr_t)real + shim_arena_block_size(real);
    if (__builtin_expect(shim_guard_owns(b), 0)) return shim_guard_data_end(b);
    return (uintptr_t)shim_block_user(b) + b->size + shim_redzone_span(b->size);
}

/// The sealed live or quarantined block whose arena slot starts at `slot`
/// (with or without a live link in front of its header), or 0: the
/// neighbour a red zone's far end or a free slot's changed bytes belong to.
const shim_block *shim_block_in_slot(uintptr_t slot);

/// Writes the pattern over the block's red zone.
static inline void shim_redzone_fill(const shim_block *b) {
    unsigned char *p = (unsigned char *)shim_block_user(b) + b->size;
    shim_pattern_set(p, SHIM_REDZONE_BYTE, shim_redzone_end(b) - (uintptr_t)p);
}

/// 1 when the zone of `n` bytes at `p` holds the pattern: 16 bytes a
/// step without a branch between loads (shim_pattern_holds; zones are 16
/// bytes to 2 KiB, often several lines, cold at free), bytewise below 16
/// (a guarded block may end at its guard page with less).
static inline int shim_redzone_holds(const unsigned char *p, size_t n) {
    if (__builtin_expect(n < 16, 0)) {
        for (size_t i = 0; i < n; i++) if (p[i] != SHIM_REDZONE_BYTE) return 0;
        return 1;
    }
    return shim_pattern_holds(p, SHIM_REDZONE_WORD, n);
}

/// 1 when the red zone still holds its pattern (the per-free check).
static inline int shim_redzone_intact(const shim_block *b) {
    // A guarded block's data pages in front of it hold the pattern too.
    if (__builtin_expect(shim_guard_owns(b), 0) && !shim_guard_front_intact(b)) return 0;
    const unsigned char *p = (const unsigned char *)shim_block_user(b) + b->size;
    return shim_redzone_holds(p, shim_redzone_end(b) - (uintptr_t)p);
}

/// Asks for the last lines of the red zone of the arena block whose user
/// bytes start at `p`, from the address alone (its slot's end, by the
/// class its region holds), before the header is read: free's check then
/// finds them in flight instead of missing on the zone only after the
/// header's own miss gave its size (two misses in a row, issue 29: `whole`
/// was 30 % of the uniform workload's quarantine-only run). Prefetches
/// never fault, so `p` may be anything; other pointers are left alone.
static inline void shim_redzone_prefetch(const void *p) {
    if (!shim_arena_owns(p)) return;
    uintptr_t off = (uintptr_t)p - shim_arena_base;
    unsigned c = shim_arena_class_at(p);
    uintptr_t in = off & 0xffffu, size = shim_arena_class_sizes[c];
    uintptr_t end = (uintptr_t)p - in + (shim_arena_slot_in_span(in, c) + 1) * size;
    // A zone is at most the class step (an eighth of the slot) and 16
    // bytes more: up to 4 lines for the biggest classes.
    __builtin_prefetch((const void *)(end - 1));
    if (size > 128) __builtin_prefetch((const void *)(end - 65));
    if (size > 1024) { __builtin_prefetch((const void *)(end - 129)); __builtin_prefetch((const void *)(end - 193)); }
}

/// The changed part of a red zone: `first` and `last` changed bytes as
/// offsets past the block's end, and the zone's length. 0 when intact.
int shim_redzone_changed(const shim_block *b, size_t *first, size_t *last, size_t *zone);

/// A red zone found changed in block `b` (its header whole, state `state`),
/// `detected` at "free", "realloc", "quarantine_release" or "exit_check":
/// reports a heap_buffer_overflow of `b`, or a heap_buffer_underflow of
/// the block after it when only the zone's far end changed. The pattern
/// is written back (a report is made once). Returns when it does not halt.
void shim_redzone_report(const shim_block *b, uint32_t state, const char *detected);

/// At exit: the red zones of every live block (through the live list, or
/// without leak tracking the arena's blocks) and of every quarantined one;
/// reports the changed ones (at most 16). shim_redzone_exit.c.
void shim_redzone_exit_check(void);

#endif
