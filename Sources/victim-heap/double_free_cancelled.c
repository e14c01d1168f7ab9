// victim-heap double-free-while-cancelled: a worker is asked to end with
// pthread_cancel (deferred, the default) while it computes, and frees a
// block twice before it reaches a cancellation point. glibc aborts the
// process without Faultline. Under the shim the report's first write (a
// cancellation point) acted on the request: the worker ended inside free,
// with no report, and the program went on.
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "victim_heap.h"

#define NOINLINE __attribute__((noinline))

static atomic_int g_go;

NOINLINE static void *victim_cancelled_alloc(void) { return malloc(48); }
NOINLINE static void victim_cancelled_free(void *p) { free(p); }

static void *cancelled_worker(void *unused) {
    void *p = victim_cancelled_alloc();
    while (!atomic_load(&g_go)) {}  // no cancellation point
    victim_cancelled_free(p);
    victim_cancelled_free(p);
    return unused;
}

int double_free_while_cancelled(void) {
    pthread_t t;
    if (pthread_create(&t, 0, cancelled_worker, 0) != 0) return 2;
    fprintf(stderr, "victim: cancelling a worker, which then frees a block twice\n");
    pthread_cancel(t);
    atomic_store(&g_go, 1);
    pthread_join(t, 0);
    fprintf(stderr, "victim: the worker ended and the process goes on\n");
    return 0;
}
