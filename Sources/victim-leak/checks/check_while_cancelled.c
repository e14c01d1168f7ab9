#include "check_while_cancelled.h"
#include "victim_leak_check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static victim_leak_check_fn g_check;
static atomic_int g_go;
static long g_worker_result = -2;  // -2: the check did not return

static void *cancelled_checker(void *unused) {
    while (!atomic_load(&g_go)) {}  // no cancellation point
    g_worker_result = g_check();
    return unused;
}

int victim_check_while_cancelled(void) {
    g_check = victim_leak_check_needed();
    if (!g_check) return 2;
    pthread_t t;
    if (pthread_create(&t, 0, cancelled_checker, 0) != 0) return 2;
    pthread_cancel(t);
    atomic_store(&g_go, 1);
    pthread_join(t, 0);
    void *volatile blocks[64];
    for (int i = 0; i < 64; i++) blocks[i] = malloc(4096);
    long mine = g_check();
    for (int i = 0; i < 64; i++) free(blocks[i]);
    printf("victim: the cancelled worker's check returned %ld; main allocated and checked after it: %ld\n", g_worker_result, mine);
    return 0;
}
