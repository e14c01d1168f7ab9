// victim-c crash-beside-crowd KIND N: main crashes beside N threads
// ('crowd-0' …) that all spin (KIND spinning: on a 2-core machine each
// answers a stack request only when the scheduler gives it a CPU), block
// every signal for good (blocking: each costs its short wait), or sleep in
// pause (sleeping: each answers at once). For the crash report's time over
// a whole thread list (docs/agent.md, "Other threads' stacks").
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void victim_null_deref(void);  // main.c

enum crowd_kind { CROWD_SPINNING, CROWD_BLOCKING, CROWD_SLEEPING };

static enum crowd_kind g_kind;
static pthread_barrier_t g_ready;
static volatile uint64_t g_sink;

__attribute__((noinline)) static void crowd_spin(void) {
    uint64_t x = 1;
    for (;;) g_sink = x = x * 6364136223846793005ull + 1442695040888963407ull;
}

static void *crowd_thread(void *arg) {
    char name[16];
    snprintf(name, sizeof name, "crowd-%d", (int)(intptr_t)arg);
    pthread_setname_np(pthread_self(), name);
    if (g_kind == CROWD_BLOCKING) {
        sigset_t all;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, 0);
    }
    pthread_barrier_wait(&g_ready);
    if (g_kind == CROWD_SPINNING) crowd_spin();
    for (;;) pause();
    return arg;
}

int victim_crash_beside_crowd(const char *kind, const char *count) {
    if (kind && !strcmp(kind, "spinning")) g_kind = CROWD_SPINNING;
    else if (kind && !strcmp(kind, "blocking")) g_kind = CROWD_BLOCKING;
    else if (kind && !strcmp(kind, "sleeping")) g_kind = CROWD_SLEEPING;
    else { fprintf(stderr, "victim-c: crash-beside-crowd: KIND '%s' is not spinning, blocking or sleeping\n", kind ? kind : ""); return 2; }
    int n = count ? atoi(count) : 64;
    if (n < 1 || n > 4000) { fprintf(stderr, "victim-c: crash-beside-crowd: N '%s' is not 1 to 4000\n", count); return 2; }
    pthread_barrier_init(&g_ready, 0, (unsigned)n + 1);
    for (int i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, 0, crowd_thread, (void *)(intptr_t)i) != 0) { fprintf(stderr, "victim-c: thread %d: cannot start\n", i); return 3; }
    }
    pthread_barrier_wait(&g_ready);
    usleep(50000);  // the sleepers in pause, the spinners spread over the CPUs
    fprintf(stderr, "victim: crashing beside %d %s threads\n", n, kind);
    victim_null_deref();
    return 1;
}
