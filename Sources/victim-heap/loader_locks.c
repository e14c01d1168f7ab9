// victim-heap dl-iterate-callback-alloc: two threads whose dl_iterate_phdr
// callback allocates (glibc holds the loader's write lock around it) while
// two others keep starting threads that allocate once from varying depths.
// A new thread's first stacks make libunwind look frames up, holding its
// cache lock, with dl_iterate_phdr (which takes that write lock).
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "victim_heap.h"

#define NOINLINE __attribute__((noinline))

static volatile int g_stop;

// 64 functions that call each other in an order the seed picks: many
// distinct return addresses, which libunwind's small frame cache keeps
// looking up again.
typedef void *(*step_fn)(unsigned, int);
static step_fn g_steps[64];
#define STEP(i) \
    NOINLINE static void *step##i(unsigned s, int depth) { \
        void *p = depth == 0 ? malloc(24) : g_steps[(s >> 3) % 64](s * 1103515245u + 12345u, depth - 1); \
        __asm__ volatile("" ::: "memory"); \
        return p; \
    }
#define STEP8(a) STEP(a##0) STEP(a##1) STEP(a##2) STEP(a##3) STEP(a##4) STEP(a##5) STEP(a##6) STEP(a##7)
STEP8(1) STEP8(2) STEP8(3) STEP8(4) STEP8(5) STEP8(6) STEP8(7) STEP8(8)
#define ADDR8(a) step##a##0, step##a##1, step##a##2, step##a##3, step##a##4, step##a##5, step##a##6, step##a##7
static step_fn g_steps[64] = {ADDR8(1), ADDR8(2), ADDR8(3), ADDR8(4), ADDR8(5), ADDR8(6), ADDR8(7), ADDR8(8)};

static void *allocate_once(void *seed) {
    unsigned s = (unsigned)(uintptr_t)seed;
    free(g_steps[s % 64](s, (int)(s % 40)));
    return 0;
}

static void *starter(void *seed) {
    unsigned s = (unsigned)(uintptr_t)seed;
    while (!g_stop) {
        s = s * 1103515245u + 12345u;
        pthread_t t;
        if (pthread_create(&t, 0, allocate_once, (void *)(uintptr_t)(s >> 8)) == 0) pthread_join(t, 0);
    }
    return 0;
}

// Two threads running `loader_side` and two starting short-lived
// allocating threads, for 3 s.
static void race_for_3s(void *(*loader_side)(void *)) {
    pthread_t t[4];
    pthread_create(&t[0], 0, loader_side, (void *)1);
    pthread_create(&t[1], 0, loader_side, (void *)2);
    pthread_create(&t[2], 0, starter, (void *)3);
    pthread_create(&t[3], 0, starter, (void *)4);
    struct timespec ts = {3, 0};
    nanosleep(&ts, 0);
    g_stop = 1;
    for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
}

static int allocating_callback(struct dl_phdr_info *info, size_t size, void *data) {
    (void)info;
    (void)size;
    unsigned *s = data;
    *s = *s * 1103515245u + 12345u;
    free(g_steps[*s % 64](*s, (int)((*s >> 8) % 30)));
    return 0;
}

static void *iterator(void *seed) {
    unsigned s = (unsigned)(uintptr_t)seed;
    while (!g_stop) dl_iterate_phdr(allocating_callback, &s);
    return 0;
}

int dl_iterate_callback_alloc(void) {
    race_for_3s(iterator);
    printf("victim: dl_iterate_phdr callbacks allocated while new threads allocated: done\n");
    return 0;
}
