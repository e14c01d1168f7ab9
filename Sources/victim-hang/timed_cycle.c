// timed-cycle: main and a worker take two locks in opposite orders, each
// second lock with pthread_mutex_timedlock: main gives up after 1 s and
// lets go of its first lock, and the worker then gets through. A wait-for
// cycle of timed waits ends by itself: it is not a deadlock (docs/hangs.md).
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t g_first = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_second = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t g_both_hold_one;

/// Locks `m` with a deadline `ms` from now; 0 or the error.
__attribute__((noinline)) static int timed_cycle_lock(pthread_mutex_t *m, int ms) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) { t.tv_sec++; t.tv_nsec -= 1000000000L; }
    return pthread_mutex_timedlock(m, &t);
}

static void *timed_cycle_worker(void *unused) {
    pthread_setname_np(pthread_self(), "timed-worker");
    pthread_mutex_lock(&g_second);
    pthread_barrier_wait(&g_both_hold_one);
    int rc = timed_cycle_lock(&g_first, 3000);  // main gives up first
    if (rc == 0) pthread_mutex_unlock(&g_first);
    pthread_mutex_unlock(&g_second);
    fprintf(stderr, "victim: timed-cycle: the worker %s\n", rc == 0 ? "got the first lock" : strerror(rc));
    return unused;
}

int victim_cmd_timed_cycle(int argc, char **argv, char **envp) {
    (void)argc;
    (void)argv;
    pthread_barrier_init(&g_both_hold_one, 0, 2);
    pthread_mutex_lock(&g_first);
    pthread_t worker;
    pthread_create(&worker, 0, timed_cycle_worker, 0);
    pthread_barrier_wait(&g_both_hold_one);
    fprintf(stderr, "victim: timed-cycle: main and timed-worker each hold one lock and wait, timed, for the other's\n");
    int rc = timed_cycle_lock(&g_second, 1000);
    fprintf(stderr, "victim: timed-cycle: main: %s\n", rc == ETIMEDOUT ? "timed out, letting go" : strerror(rc));
    if (rc == 0) pthread_mutex_unlock(&g_second);
    pthread_mutex_unlock(&g_first);
    pthread_join(worker, 0);
    fprintf(stderr, "victim: timed-cycle: done\n");
    return rc == ETIMEDOUT ? 0 : 1;
}
