// Free arena slots carry a pattern while they wait on a free list, checked
// when the arena hands the slot out again: a write that jumped over a small
// block's red zone (the rest of its slot, 16 to 31 bytes) into the next
// slot, while that slot was free, is a heap_buffer_overflow of the block in
// front (mimalloc-bench's 32_byte_overflow at 8 bytes went unseen).
//
//   released slot  [free-list link 8 B][pattern 8 B][old bytes …][0xFB to the end]
//   fresh slot     [zeros …]
//
// Checked at hand-out, by the thread that now owns the slot: checking the
// slot after a block at that block's free raced with the thread whose cache
// held it. The link (bytes 0-7) is the arena's and already followed by then.
#ifndef SHIM_FREE_SLOT_H
#define SHIM_FREE_SLOT_H

#include <stdint.h>
#include <string.h>

/// The pattern in bytes 8-15 of a released arena slot.
#define SHIM_FREE_SLOT_WORD 0xFDFDFDFDFDFDFDFDull

/// Marks arena slot `real` as released (before the arena links it).
static inline void shim_free_slot_mark(void *real) { __builtin_memcpy((char *)real + 8, &(uint64_t){SHIM_FREE_SLOT_WORD}, 8); }

/// Reports a change found in slot `real`'s pattern (`fresh`: never handed
/// out, all zeros; else released). Out of line; the check is inline.
void shim_free_slot_changed(void *real, int fresh);

/// The check at hand-out: bytes 8-15 hold the pattern (released) or, in a
/// fresh slot, bytes 0-15 are zero. A few loads.
static inline void shim_free_slot_check(void *real, int fresh) {
    uint64_t w[2];
    __builtin_memcpy(w, real, 16);
    if (__builtin_expect(fresh ? (w[0] | w[1]) != 0 : w[1] != SHIM_FREE_SLOT_WORD, 0)) shim_free_slot_changed(real, fresh);
}

#endif
