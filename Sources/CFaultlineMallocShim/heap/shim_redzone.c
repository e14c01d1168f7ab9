#include "shim_redzone.h"
#include "shim_config.h"
#include "shim_heap.h"
#include "shim_report.h"

#include <string.h>

int shim_redzone_changed(const shim_block *b, size_t *first, size_t *last, size_t *zone) {
    const unsigned char *p = (const unsigned char *)shim_block_user(b) + b->size;
    size_t n = shim_redzone_end(b) - (uintptr_t)p;
    size_t i = 0, j = n;
    while (i < n && p[i] == SHIM_REDZONE_BYTE) i++;
    if (i == n) return 0;
    while (j > i && p[j - 1] == SHIM_REDZONE_BYTE) j--;
    *first = i;
    *last = j - 1;
    *zone = n;
    return 1;
}

const shim_block *shim_block_in_slot(uintptr_t slot) {
    for (unsigned link = 0; link <= SHIM_LINK_SIZE; link += SHIM_LINK_SIZE) {
        const void *user = (const void *)(slot + link + SHIM_HEADER_SIZE);
        uint32_t st = shim_classify(user);
        if ((st == SHIM_LIVE || st == SHIM_QUARANTINED) && shim_block_sealed(shim_block_from_user(user)))
            return shim_block_from_user(user);
    }
    return 0;
}

// The block whose header follows arena block `b`'s slot, when there is one.
static const shim_block *next_in_arena(const shim_block *b) {
    return shim_arena_owns(shim_block_real(b)) ? shim_block_in_slot(shim_redzone_end(b)) : 0;
}

void shim_redzone_report(const shim_block *b, uint32_t state, const char *detected) {
    size_t first, last, zone;
    // In front of a guarded block (shim_guard.c): an underflow past its header.
    if (__builtin_expect(shim_guard_owns(b), 0)) shim_guard_front_report(b, state, detected);
    if (!shim_redzone_changed(b, &first, &last, &zone)) return;
    unsigned char now[256];
    size_t keep = zone < sizeof now ? zone : sizeof now;
    memcpy(now, (const unsigned char *)shim_block_user(b) + b->size, keep);
    if (last >= keep) last = keep - 1;
    shim_block copy = *b;
    shim_redzone_fill(b);  // reported once
    // Untouched right after the block, changed up to the next one's
    // header: a write in front of that block (an underflow), not past this one.
    const shim_block *next = first > 0 && last == zone - 1 ? next_in_arena(b) : 0;
    if (next) {
        uintptr_t at = (uintptr_t)shim_block_user(b) + copy.size + first;
        shim_block ncopy = *next;
        shim_report_heap_underflow(&ncopy, shim_block_user(next), shim_state_of(next, next->magic), "red_zone",
                                   (uintptr_t)shim_block_user(next) - at, last - first + 1, &copy, shim_block_user(b), detected);
        return;
    }
    shim_report_heap_overflow(&copy, shim_block_user(b), state, first, last, zone, now, detected);
}
