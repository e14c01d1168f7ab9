// victim-heap realloc-growth: one buffer grown by realloc in small steps to
// several MB, as a shell grows the string it reads from a command
// substitution, then shrunk in halves; every byte is checked at the end.
// Under the shim every realloc moves the block, so each step is a new
// allocation of the whole size and a copy.
#include "victim_heap.h"

#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP 4099u             // not a multiple of a page or of 16
#define TARGET (4u << 20)      // about 4 MiB: far past glibc's 128 KiB mmap threshold

static inline unsigned char byte_at(size_t i) { return (unsigned char)(i ^ (i >> 8) ^ (i >> 16)); }

// glibc's count of blocks it mapped on their own (malloc_info's
// <total type="mmap" count="N" ...>), or -1.
static int glibc_mapped_blocks(void) {
    char *xml = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&xml, &len);
    if (!f) return -1;
    int ok = malloc_info(0, f) == 0;
    fclose(f);
    int count = -1;
    const char *at = ok && xml ? strstr(xml, "<total type=\"mmap\" count=\"") : NULL;
    if (at) count = atoi(at + strlen("<total type=\"mmap\" count=\""));
    free(xml);
    return count;
}

int realloc_growth(void) {
    size_t size = 0;
    unsigned char *buf = NULL;
    int steps = 0;
    while (size < TARGET) {
        size_t grown = size + STEP;
        unsigned char *p = realloc(buf, grown);
        if (!p) { printf("victim: realloc to %zu bytes failed\n", grown); return 1; }
        // The bytes kept must have moved with the block.
        if (size && (p[0] != byte_at(0) || p[size - 1] != byte_at(size - 1))) {
            printf("victim: realloc to %zu bytes lost the old content\n", grown);
            return 1;
        }
        for (size_t i = size; i < grown; i++) p[i] = byte_at(i);
        buf = p;
        size = grown;
        steps++;
    }
    for (size_t i = 0; i < size; i++)
        if (buf[i] != byte_at(i)) { printf("victim: byte %zu of %zu is wrong after growing\n", i, size); return 1; }
    int mapped = glibc_mapped_blocks();
    while (size > 1024) {
        size /= 2;
        unsigned char *p = realloc(buf, size);
        if (!p) { printf("victim: realloc down to %zu bytes failed\n", size); return 1; }
        buf = p;
        for (size_t i = 0; i < size; i++)
            if (buf[i] != byte_at(i)) { printf("victim: byte %zu of %zu is wrong after shrinking\n", i, size); return 1; }
    }
    free(buf);
    printf("victim: grew a buffer to %zu bytes in %d reallocs and shrank it again; its content is intact\n", (size_t)steps * STEP, steps);
    printf("victim: glibc's mapped blocks at the largest: %d (%s)\n", mapped, mapped == 0 ? "none" : mapped > 0 ? "some" : "unknown");
    return 0;
}

int realloc_growth_mallopt(void) {
    // The program's own threshold: glibc's default, fixed.
    if (mallopt(M_MMAP_THRESHOLD, 128 * 1024) != 1) { printf("victim: mallopt failed\n"); return 1; }
    return realloc_growth();
}
