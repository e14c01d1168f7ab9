// victim-heap write-after-free-offsets: what the release's verification
// finds of one-byte writes after free spread over long blocks. 64 blocks
// of 3000 bytes are freed, block k is written one byte at offset 47 k (0
// to 2961: the first and last 64 bytes, and every chunk between), then 24
// MB of other 3000-byte blocks are freed so that all 64 leave the
// quarantine during the run (none is left for the exit check). Run with
// FAULTLINE_HALT_ON_ERROR=0 and FAULTLINE_MAX_HEAP_REPORTS=1: the count of
// errors not reported is how many writes the release found, less one.
#include <stdio.h>
#include <stdlib.h>

#include "victim_heap.h"

#define NOINLINE __attribute__((noinline))

enum { BLOCKS = 64, SIZE = 3000, STEP = 47, CHURN = 8192 };

NOINLINE char *victim_alloc_long_block(void) { return malloc(SIZE); }
NOINLINE void victim_free_long_block(char *p) { free(p); }
NOINLINE void victim_write_freed_byte(char *p, int at) { p[at] = 0x42; }

int write_after_free_offsets(void) {
    static char *blocks[BLOCKS];
    for (int k = 0; k < BLOCKS; k++) blocks[k] = victim_alloc_long_block();
    for (int k = 0; k < BLOCKS; k++) victim_free_long_block(blocks[k]);
    for (int k = 0; k < BLOCKS; k++) victim_write_freed_byte(blocks[k], STEP * k);
    for (int i = 0; i < CHURN; i++) {
        char *p = malloc(SIZE);
        if (!p) return 1;
        p[0] = (char)i;
        free(p);
    }
    printf("victim: wrote 1 byte into each of %d freed %d-byte blocks, at offsets 0 to %d, then freed %d more\n", BLOCKS, SIZE,
           STEP * (BLOCKS - 1), CHURN);
    return 0;
}
