// victim-heap write-after-free-free-sites: blocks from one allocation site,
// freed at two different sites, are all written after the free. The exit
// check groups changed blocks by allocation and free stack together: two
// groups, not one.
#include <stdio.h>
#include <stdlib.h>

#include "victim_heap.h"

#define NOINLINE __attribute__((noinline))

enum { EACH = 4 };

NOINLINE long *victim_alloc_item(void) { return malloc(64); }
NOINLINE void victim_retire_item(long *p) { free(p); }
NOINLINE void victim_discard_item(long *p) { free(p); }
NOINLINE void victim_touch_item(long *p) { p[3] = 0x1122334455667788; }  // 8 bytes at offset 24

int write_after_free_free_sites(void) {
    // One call line for every allocation and every write: only the free
    // stacks differ.
    long *items[2 * EACH];
    for (int i = 0; i < 2 * EACH; i++) items[i] = victim_alloc_item();
    for (int i = 0; i < 2 * EACH; i++) {
        if (i % 2) victim_discard_item(items[i]);
        else victim_retire_item(items[i]);
    }
    for (int i = 0; i < 2 * EACH; i++) victim_touch_item(items[i]);
    printf("victim: wrote into %d items freed at one site and %d freed at another\n", EACH, EACH);
    return 0;
}
