// victim-heap entry-points: a correct program that calls every allocation
// entry point glibc exports and frees each block. For the step-aside
// scenarios: with another allocator (jemalloc, tcmalloc) preloaded before
// or after the shim, every call must reach that allocator, whose free
// rejects (or corrupts itself on) a block some other allocator made.
#include "victim_heap.h"

#include <malloc.h>
#include <mcheck.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// Writes all `n` bytes (a block too small, or another allocator's, shows
// up here or in the free) and frees the block.
static int use(const char *what, void *p, size_t n, size_t align) {
    if (!p || ((uintptr_t)p & (align - 1)) || malloc_usable_size(p) < n) {
        printf("victim: %s gave %p (usable %zu, wanted %zu bytes aligned to %zu)\n", what, p, p ? malloc_usable_size(p) : 0, n, align);
        return 1;
    }
    memset(p, 0x42, n);
    free(p);
    return 0;
}

int entry_points(void) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    int bad = 0;
    bad |= use("malloc", malloc(100), 100, 16);
    bad |= use("calloc", calloc(10, 30), 300, 16);
    // Grown twice: coreutils' xreallocarray does this for every growing buffer.
    char *r = reallocarray(NULL, 10, 10);
    if (r) memset(r, 1, 100);
    r = reallocarray(r, 100, 10);
    bad |= use("reallocarray", r, 1000, 16);
    char *g = realloc(NULL, 50);
    if (g) memset(g, 2, 50);
    g = realloc(g, 5000);
    bad |= use("realloc", g, 5000, 16);
    free(realloc(malloc(10), 0));  // NULL under glibc, a block under some others
    void *pm = NULL;
    bad |= posix_memalign(&pm, 64, 200) != 0 || use("posix_memalign", pm, 200, 64);
    bad |= use("aligned_alloc", aligned_alloc(64, 128), 128, 64);
    bad |= use("memalign", memalign(128, 100), 100, 128);
    bad |= use("valloc", valloc(100), 100, page);
    bad |= use("pvalloc", pvalloc(100), page, page);
    if (bad) return 1;
    printf("victim: every entry point worked\n");
    return 0;
}

// Allocations between mtrace() and muntrace() go into $MALLOC_TRACE, when
// glibc's libc_malloc_debug.so is loaded and the calls reach it.
int mtrace_blocks(void) {
    mtrace();
    char *p = malloc(4321);
    memset(p, 1, 4321);
    free(p);
    muntrace();
    printf("victim: traced a block of 4321 bytes\n");
    return 0;
}
