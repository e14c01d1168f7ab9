// victim-heap write-after-free-far: a 2000-byte block is freed and then
// written 1000 bytes in, then the program exits. At the default scribble
// limit (4096 B) the exit check reports it at offset 1000; with
// FAULTLINE_SCRIBBLE_LIMIT=256 the write lands on bytes the shim did not
// scribble and is not seen (docs/malloc-shim.md, "Costs of each check").
#include <stdio.h>
#include <stdlib.h>

#include "victim_heap.h"

#define NOINLINE __attribute__((noinline))

NOINLINE char *victim_alloc_far_block(void) { return malloc(2000); }
NOINLINE void victim_free_far_block(char *p) { free(p); }
NOINLINE void victim_scribble_past_limit(char *p) { p[1000] = 0x42; }

int write_after_free_far(void) {
    char *p = victim_alloc_far_block();
    victim_free_far_block(p);
    victim_scribble_past_limit(p);
    printf("victim: wrote 1 byte 1000 bytes into a freed 2000-byte block\n");
    return 0;
}
