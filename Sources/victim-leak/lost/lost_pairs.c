// Two-block cycles whose members differ in size, as ld.gold loses them
// (a 232-byte object and a 56-byte one that point at each other). A
// cycle has no unreferenced block; valgrind calls the one it meets first
// definitely lost, and its heap meets them in allocation order.
#include "lost_pairs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// A block whose first word points at the other block of its pair.
typedef struct pair_block { struct pair_block *other; } pair_block;

__attribute__((noinline)) static pair_block *pair_first(size_t size) {
    pair_block *b = malloc(size);
    memset(b, 0, size);
    return b;
}

__attribute__((noinline)) static pair_block *pair_second(size_t size) {
    pair_block *b = malloc(size);
    memset(b, 0, size);
    return b;
}

__attribute__((noinline)) static void lose_pair(size_t first_size, size_t second_size) {
    pair_block *a = pair_first(first_size);
    pair_block *b = pair_second(second_size);
    a->other = b;
    b->other = a;
    printf("victim: lost a pair, %zu bytes allocated first at %p, %zu bytes at %p\n", first_size, (void *)a,
           second_size, (void *)b);
}

int victim_lost_pairs(void) {
    lose_pair(232, 56);
    lose_pair(56, 232);
    return 0;
}
