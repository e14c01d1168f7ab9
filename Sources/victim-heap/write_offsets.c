// victim-heap write-after-free-offsets: what the release's verification
// finds of one-byte writes after free spread over long blocks. 64 blocks
// of 3000 bytes are freed, block k is written one byte at offset 47 k (0
// to 2961: the first and last 64 bytes, and every chunk between), then 24
// MB of other 3000-byte blocks are freed so that all 64 leave the
// quarantine during the run (none is left for the exit check). Run with
// FAULTLINE_HALT_ON_ERROR=0 and FAULTLINE_MAX_HEAP_REPORTS=1: the count of
// errors not reported is how many writes the release found, less one.
//
// victim-heap write-after-free-same-offset: one bug repeated: 2000 times a
// 3000-byte block is freed and written 1500 bytes in, each among 32 other
// frees of its size. No single release need verify that chunk, but the
// verified chunks turn from release to release, so the write is found.
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

NOINLINE void victim_write_freed_middle(char *p) { p[SIZE / 2] = 0x42; }

int write_after_free_same_offset(void) {
    enum { ROUNDS = 2000, OTHERS = 32 };
    for (int r = 0; r < ROUNDS; r++) {
        char *p = victim_alloc_long_block();
        victim_free_long_block(p);
        victim_write_freed_middle(p);
        for (int i = 0; i < OTHERS; i++) {
            char *q = malloc(SIZE);
            if (!q) return 1;
            q[0] = (char)i;
            free(q);
        }
    }
    printf("victim: wrote 1 byte %d bytes into %d freed %d-byte blocks and was not stopped\n", SIZE / 2, ROUNDS, SIZE);
    return 0;
}
