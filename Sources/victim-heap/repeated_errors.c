// One heap bug repeated many times, for the shim's grouping and report
// limit (FAULTLINE_MAX_HEAP_REPORTS): thousands of freed blocks written
// from one allocation and free site, a few from another; and one double
// free repeated a thousand times.
#include <stdio.h>
#include <stdlib.h>

#include "victim_heap.h"

#define NOINLINE __attribute__((noinline))

enum { MANY = 20000, FEW = 3 };

NOINLINE long *victim_alloc_entry(void) { return malloc(64); }
NOINLINE void victim_drop_entry(long *p) { free(p); }
NOINLINE long *victim_alloc_note(void) { return malloc(48); }
NOINLINE void victim_drop_note(long *p) { free(p); }
NOINLINE void victim_write_freed(long *p, long value) { p[2] = value; }  // 8 bytes at offset 16

int write_after_free_many(void) {
    static long *entries[MANY], *notes[FEW];
    for (int i = 0; i < MANY; i++) entries[i] = victim_alloc_entry();
    for (int i = 0; i < FEW; i++) notes[i] = victim_alloc_note();
    for (int i = 0; i < MANY; i++) victim_drop_entry(entries[i]);
    for (int i = 0; i < FEW; i++) victim_drop_note(notes[i]);
    // Every block is still in the quarantine (20003 blocks, about 2 MB).
    for (int i = 0; i < MANY; i++) victim_write_freed(entries[i], 0x1122334455667788);
    for (int i = 0; i < FEW; i++) victim_write_freed(notes[i], 0x0102030405060708);
    printf("victim: wrote into %d freed entries and %d freed notes\n", MANY, FEW);
    return 0;
}

NOINLINE void victim_free_twice(void *p) { free(p); }

int double_free_repeated(void) {
    for (int i = 0; i < 1000; i++) {
        void *p = victim_alloc_note();
        victim_drop_note(p);
        victim_free_twice(p);
    }
    printf("victim: freed 1000 blocks twice\n");
    return 0;
}
