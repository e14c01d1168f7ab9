#include "shim_free_slot.h"
#include "shim_arena.h"
#include "shim_arena_class.h"
#include "shim_block.h"
#include "shim_redzone.h"
#include "shim_report.h"
#include "shim_saferead.h"

// The whole, live or quarantined block in the slot in front of `real`
// (with or without a live link in front of its header), or 0.
static const shim_block *block_before(const void *real) {
    size_t size = shim_arena_block_size(real);
    uintptr_t at = (uintptr_t)real, start = shim_arena_classes[shim_arena_class_at(real)].start;
    // Slots start afresh in each 64 KiB span: a span's first has no slot
    // right in front of it (the span before may end in a gap).
    if (at < start + size || ((at - shim_arena_base) & 0xffffu) < size) return 0;
    return shim_block_in_slot(at - size);
}

void shim_free_slot_changed(void *real, int fresh) {
    const unsigned char *p = real;
    // The changed bytes of the checked 16 (the link of a released slot is
    // the arena's: not compared).
    size_t first = fresh ? 0 : 8, last;
    while (first < 16 && p[first] == (fresh ? 0 : 0xFD)) first++;
    for (last = 15; last > first && p[last] == (fresh ? 0 : 0xFD); last--) {}
    const shim_block *b = block_before(real);
    if (!b || first >= 16) return;  // nobody to name: the slot is reused as is
    // Offsets past the block's end, as the red-zone reports count them.
    uintptr_t end = (uintptr_t)shim_block_user(b) + b->size;
    static unsigned char now[SHIM_ARENA_MAX_BLOCK + 16];
    size_t span = (uintptr_t)real + 16 - end;
    if (span > sizeof now) return;
    __builtin_memcpy(now, (const void *)end, span);
    shim_block copy = *b;
    size_t zone = shim_redzone_end(b) - end;
    shim_report_heap_overflow(&copy, shim_block_user(b), shim_state_of(b, b->magic), (uintptr_t)real + first - end,
                              (uintptr_t)real + last - end, zone, now, "slot_reuse");
}
