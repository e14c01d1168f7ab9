// victim-heap null-deref-with-mask: a NULL dereference while a register
// holds 0x5555555555555555 by coincidence (popcount and bit-interleaving
// code keep that mask in a register), with a freed block's address still
// on the stack. The crash is a NULL dereference, not a use after free.
#include "victim_heap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

// Loads through `p` with the mask in a callee-saved register (x86-64 r12,
// arm64 x19), as a popcount loop would have it.
NOINLINE int victim_read_with_mask(const int *p) {
    int v;
#if defined(__x86_64__)
    __asm__ volatile("movabsq $0x5555555555555555, %%r12\n\tmovl (%1), %0" : "=r"(v) : "r"(p) : "r12", "memory");
#elif defined(__aarch64__)
    __asm__ volatile("mov x19, #0x5555555555555555\n\tldr %w0, [%1]" : "=r"(v) : "r"(p) : "x19", "memory");
#else
    v = *(volatile const int *)p;
#endif
    return v;
}

NOINLINE void *victim_alloc_scratch(void) { return malloc(48); }

int null_deref_with_mask(void) {
    // A block freed a moment ago, its address left in this frame.
    void *volatile scratch = victim_alloc_scratch();
    free(scratch);
    int *volatile nothing = NULL;
    fprintf(stderr, "victim: reading through NULL with 0x5555555555555555 in a register\n");
    return victim_read_with_mask(nothing);
}
