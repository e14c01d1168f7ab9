#include "quarantine_model.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HEADER 32         // the shim's header size
#define LIMIT 4096        // the shim's default scribble limit
#define FILL_LIMIT 256    // ... and its fill limit
#define CLASSES 4096      // 16-byte classes: blocks up to 64 KiB, header included
#define RING (1u << 16)   // the shim's default count limit
#define SPACE (64ull << 30)

typedef struct entry { char *block; size_t cost; } entry;

static void *g_free[CLASSES];  // released blocks per class, linked through their first word
static char *g_bump, *g_end;
static entry g_ring[RING];
static size_t g_head, g_tail, g_count, g_bytes, g_budget;
static unsigned char g_pattern[LIMIT];

static inline size_t class_of(size_t total) { return (total + 15) >> 4; }
static inline size_t min_size(size_t a, size_t b) { return a < b ? a : b; }
static inline size_t *size_of(char *block) { return (size_t *)block; }

int model_init(size_t budget) {
    void *p = mmap(0, SPACE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) { perror("bench-shim: model: mmap of its 64 GiB range"); return -1; }
    g_bump = p;
    g_end = g_bump + SPACE;
    g_budget = budget;
    memset(g_pattern, 0x55, sizeof g_pattern);
    return 0;
}

// A block of `total` bytes (header included): the class's last released
// one, else new memory; blocks over the largest class come from glibc.
static char *take(size_t total) {
    size_t c = class_of(total);
    if (c >= CLASSES) return malloc(total);
    char *b = g_free[c];
    if (b) { g_free[c] = *(void **)b; return b; }
    if ((size_t)(g_end - g_bump) < c << 4) { fputs("bench-shim: model: out of address space\n", stderr); abort(); }
    b = g_bump;
    g_bump += c << 4;
    return b;
}

static void give_back(char *block, size_t total) {
    size_t c = class_of(total);
    if (c >= CLASSES) { free(block); return; }
    *(void **)block = g_free[c];
    g_free[c] = block;
}

static void release(entry e) {
    size_t n = *size_of(e.block);
    if (memcmp(e.block + HEADER, g_pattern, min_size(n, LIMIT)) != 0) {
        fputs("bench-shim: model: a freed block changed in quarantine\n", stderr);
        abort();
    }
    give_back(e.block, n + HEADER);
}

void *model_malloc(size_t n) {
    char *b = take(n + HEADER);
    if (!b) return 0;
    *size_of(b) = n;
    memset(b + HEADER, 0xAA, min_size(n, FILL_LIMIT));
    return b + HEADER;
}

void *model_calloc(size_t count, size_t n) {
    if (n && count > (SIZE_MAX - HEADER) / n) return 0;  // count * n + HEADER would overflow
    size_t total = count * n;
    char *b = take(total + HEADER);
    if (!b) return 0;
    *size_of(b) = total;
    memset(b + HEADER, 0, total);
    return b + HEADER;
}

void model_free(void *p) {
    if (!p) return;
    char *b = (char *)p - HEADER;
    size_t n = *size_of(b), cost = (class_of(n + HEADER) << 4) + sizeof(entry);
    memset(p, 0x55, min_size(n, LIMIT));
    while (g_count && (g_bytes + cost > g_budget || g_count == RING)) {
        entry old = g_ring[g_head];
        g_head = (g_head + 1) % RING;
        g_count--;
        g_bytes -= old.cost;
        release(old);
    }
    if (cost > g_budget) { release((entry){b, cost}); return; }
    g_ring[g_tail] = (entry){b, cost};
    g_tail = (g_tail + 1) % RING;
    g_count++;
    g_bytes += cost;
}

void *model_realloc(void *p, size_t n) {
    if (!p) return model_malloc(n);
    size_t old = *size_of((char *)p - HEADER);
    void *q = model_malloc(n);
    if (!q) return 0;
    memcpy(q, p, min_size(old, n));
    model_free(p);
    return q;
}
