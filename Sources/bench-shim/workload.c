#include "bench_stats.h"
#include "workload.h"
#include "quarantine_model.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/// The allocator the workload calls: the C library's (whatever LD_PRELOAD
/// puts there), or the idealised quarantine of quarantine_model.c.
typedef struct allocator {
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
} allocator;

static allocator g_alloc = {malloc, calloc, realloc, free};

typedef struct worker {
    const workload_opts *o;
    unsigned seed;
    uint64_t checksum;
} worker;

static inline uint32_t next_rand(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

const char *workload_name(workload_kind kind) { return kind == WORKLOAD_UNIFORM ? "uniform" : "mix"; }

int workload_parse(const char *name, workload_kind *out) {
    if (!strcmp(name, "mix")) *out = WORKLOAD_MIX;
    else if (!strcmp(name, "uniform")) *out = WORKLOAD_UNIFORM;
    else return -1;
    return 0;
}

long workload_default_live(workload_kind kind) { return kind == WORKLOAD_UNIFORM ? 4096 : 20000; }

// Sizes like a typical program's: mostly small, some medium, a few large.
static size_t pick_size(unsigned *s) {
    uint32_t r = next_rand(s) % 100;
    if (r < 70) return 16 + next_rand(s) % 112;
    if (r < 95) return 128 + next_rand(s) % 896;
    return 1024 + next_rand(s) % 15360;
}

// mix: each operation frees a random slot's block (checking its first and
// last bytes) and puts a new one there, written in full as a program would
// initialise it; one in ten is a calloc, one in ten grows the block with
// realloc.
static void *run_mix(void *arg) {
    worker *w = arg;
    long live = w->o->live;
    unsigned char **slot = calloc((size_t)live, sizeof *slot);
    size_t *size = calloc((size_t)live, sizeof *size);
    uint64_t sum = 0;
    for (long op = 0; op < w->o->ops; op++) {
        long i = (long)(next_rand(&w->seed) % (uint32_t)live);
        uint32_t kind = next_rand(&w->seed) % 10;
        if (slot[i] && kind == 0) {
            size_t n = size[i] + size[i] / 2;
            unsigned char *p = g_alloc.realloc(slot[i], n);
            memset(p + size[i], (int)(op & 0xff), n - size[i]);
            slot[i] = p;
            size[i] = n;
            sum += p[n - 1];
            continue;
        }
        if (slot[i]) {
            sum += slot[i][0] + slot[i][size[i] - 1];
            g_alloc.free(slot[i]);
        }
        size_t n = pick_size(&w->seed);
        unsigned char *p;
        if (kind == 1) {
            p = g_alloc.calloc(1, n);
            p[0] = (unsigned char)op;
        } else {
            p = g_alloc.malloc(n);
            memset(p, (int)(op & 0xff), n);
        }
        slot[i] = p;
        size[i] = n;
    }
    for (long i = 0; i < live; i++) g_alloc.free(slot[i]);
    free(slot);
    free(size);
    w->checksum = sum;
    return NULL;
}

/// Bytes of each block the uniform workload writes and reads.
#define UNIFORM_TOUCH 16

// uniform: each operation frees a random slot's block (reading back what
// was written) and mallocs one of 16–4111 bytes there, writing its first
// 16 bytes only: the allocator's own cost, not the program's writes.
static void *run_uniform(void *arg) {
    worker *w = arg;
    long live = w->o->live;
    unsigned char **slot = calloc((size_t)live, sizeof *slot);
    uint64_t sum = 0;
    for (long op = 0; op < w->o->ops; op++) {
        long i = (long)(next_rand(&w->seed) % (uint32_t)live);
        if (slot[i]) {
            sum += slot[i][0] + slot[i][UNIFORM_TOUCH - 1];
            g_alloc.free(slot[i]);
        }
        size_t n = 16 + next_rand(&w->seed) % 4096;
        unsigned char *p = g_alloc.malloc(n);
        memset(p, (int)(op & 0xff), UNIFORM_TOUCH);
        slot[i] = p;
    }
    for (long i = 0; i < live; i++) g_alloc.free(slot[i]);
    free(slot);
    w->checksum = sum;
    return NULL;
}

size_t bench_env_size(const char *name, size_t fallback) {
    const char *v = getenv(name);
    if (!v || !*v) return fallback;
    char *end;
    double n = strtod(v, &end);
    if (*end == 'K' || *end == 'k') n *= 1024;
    else if (*end == 'M' || *end == 'm') n *= 1024 * 1024;
    else if (*end == 'G' || *end == 'g') n *= 1024.0 * 1024 * 1024;
    return (size_t)n;
}

int workload_run(const workload_opts *o) {
    const char *which = getenv("BENCH_SHIM_ALLOCATOR");
    if (which && !strcmp(which, "model")) {
        if (o->threads != 1) { fprintf(stderr, "bench-shim: the quarantine model runs one thread only, not %d\n", o->threads); return 2; }
        if (model_init(bench_env_size("FAULTLINE_QUARANTINE_BYTES", 16u << 20)) != 0) return 1;
        g_alloc = (allocator){model_malloc, model_calloc, model_realloc, model_free};
    } else if (which && *which) {
        fprintf(stderr, "bench-shim: BENCH_SHIM_ALLOCATOR=%s is not 'model'; unset it for the C library's\n", which);
        return 2;
    }
    void *(*body)(void *) = o->kind == WORKLOAD_UNIFORM ? run_uniform : run_mix;
    pthread_t t[64];
    worker w[64];
    int n = o->threads < 1 ? 1 : o->threads > 64 ? 64 : o->threads;
    uint64_t t0 = bench_now_ns(CLOCK_MONOTONIC);
    for (int i = 0; i < n; i++) {
        w[i] = (worker){o, 12345u + 7919u * (unsigned)i, 0};
        if (n == 1) body(&w[i]);
        else pthread_create(&t[i], NULL, body, &w[i]);
    }
    uint64_t sum = 0;
    for (int i = 0; i < n; i++) {
        if (n > 1) pthread_join(t[i], NULL);
        sum += w[i].checksum;
    }
    uint64_t ns = bench_now_ns(CLOCK_MONOTONIC) - t0;
    printf("workload %s: %ld ops x %d threads, %ld live slots: %.1f ns/op, checksum %llu\n", workload_name(o->kind), o->ops, n, o->live,
           (double)ns / (double)(o->ops * n), (unsigned long long)sum);
    return 0;
}
