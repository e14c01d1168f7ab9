#include "leak_sites.h"

#include <stdlib.h>

void *g_cache[100];

__attribute__((noinline)) void fill_cache(void) {
    for (int i = 0; i < 100; i++) g_cache[i] = malloc(64);
}

__attribute__((noinline)) void leak_77(void) {
    volatile char *p = malloc(77);
    p[0] = 1;
    p = 0;
}

__attribute__((noinline)) void *leak_site(size_t n) { return malloc(n); }

// Descends `levels` levels, through one of two call sites at each level
// (bit `level` of `path`), and loses a block at the bottom: every path is
// an allocation stack of its own.
__attribute__((noinline)) static void descend(unsigned path, int level, int levels) {
    if (level == levels) {
        volatile char *p = leak_site(24);
        p[0] = 1;
        return;
    }
    if ((path >> level) & 1) descend(path, level + 1, levels);
    else descend(path, level + 1, levels);
    __asm__ volatile("" ::: "memory");  // keeps both calls real calls, not tail jumps
}

__attribute__((noinline)) void lose_from_many_stacks(int n) {
    for (int i = 0; i < n; i++) descend((unsigned)i, 0, 13);
}
