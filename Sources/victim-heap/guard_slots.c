// victim-heap guard-slot-recycled / guard-slot-freed: uses after free of
// sampled guarded blocks (FAULTLINE_GUARD=sample:1, so every allocation
// but a thread's first is sampled, while a slot is free). A slot keeps its pages when its block
// is freed (guard/shim_guard.c): they must still fault until the slot is
// handed out again, and a block on a slot's second turn must fault after
// its own free as the first did. Messages go through write(2), so no
// stdio buffer is made in between.
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "victim_heap.h"

#define NOINLINE __attribute__((noinline))

NOINLINE int *victim_alloc_slot(size_t n) { return malloc(n); }
NOINLINE void victim_release_slot(int *p) { free(p); }
NOINLINE int victim_read_freed_slot(const int *p, int i) { return ((volatile const int *)p)[i]; }

static void say(const char *s) { (void)!write(2, s, strlen(s)); }

// A sampled block of `n` bytes ends at its slot's guard page (malloc's
// 16-byte alignment kept): its address is that far below a page's end.
static int guarded(const void *p, size_t n) { return ((unsigned long)p & 4095) == 4096 - n; }

/// A 48-byte block is freed; 32-byte blocks are allocated and freed until
/// one gets the first one's slot (oldest-freed first: after every other
/// free slot), 16 bytes further on; that one is freed, then read.
int guard_slot_recycled(void) {
    char *first = (char *)victim_alloc_slot(48);
    if (!guarded(first, 48)) {
        say("victim: the first block is not guarded\n");
        return 1;
    }
    memset(first, 1, 48);
    victim_release_slot((int *)first);
    int *second = 0;
    for (int i = 0; i < 1000000 && !second; i++) {
        int *p = victim_alloc_slot(32);
        if ((char *)p == first + 16) second = p;
        else free(p);
    }
    if (!second) {
        say("victim: no block got the first one's slot\n");
        return 1;
    }
    memset(second, 2, 32);
    victim_release_slot(second);
    say("victim: reading an int of a freed block on its slot's second turn\n");
    return victim_read_freed_slot(second, 3) == 0x02020202 ? 0 : 2;
}

NOINLINE void victim_write_in_front(char *p, long at) { ((volatile char *)p)[at] = 1; }

/// A 64-byte block's slot again for a 32-byte block, as above (its front
/// pattern the one the first block's free found whole, the 32 bytes the
/// first one's link and header had written anew), then a write 64 bytes
/// in front of it and its free.
int guard_slot_front_underflow(void) {
    char *first = (char *)victim_alloc_slot(64);
    if (!guarded(first, 64)) {
        say("victim: the first block is not guarded\n");
        return 1;
    }
    victim_release_slot((int *)first);
    char *second = 0;
    for (int i = 0; i < 1000000 && !second; i++) {
        char *p = (char *)victim_alloc_slot(32);
        if (p == first + 32) second = p;
        else free(p);
    }
    if (!second) {
        say("victim: no block got the first one's slot\n");
        return 1;
    }
    say("victim: writing 1 byte 64 bytes in front of a block on its slot's second turn\n");
    victim_write_in_front(second, -64);
    victim_release_slot((int *)second);
    return 0;
}

/// A 32-byte block is freed, another takes a slot, and the first is read
/// (its slot not handed out again yet).
int guard_slot_freed(void) {
    int *first = victim_alloc_slot(32);
    if (!guarded(first, 32)) {
        say("victim: the first block is not guarded\n");
        return 1;
    }
    memset(first, 1, 32);
    victim_release_slot(first);
    int *other = victim_alloc_slot(32);
    if (!other || (((unsigned long)first ^ (unsigned long)other) >> 12) == 0) {
        say("victim: the second block took the freed block's slot\n");
        return 1;
    }
    say("victim: reading an int of a freed block whose slot is not reused yet\n");
    return victim_read_freed_slot(first, 3) == 0x01010101 ? 0 : 2;
}
