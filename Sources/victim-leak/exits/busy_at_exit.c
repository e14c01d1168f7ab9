// Threads at work when main returns (busy_at_exit.h).
#include "busy_at_exit.h"

#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *g_lost;
static atomic_int g_started;

static void cut_short(const char *how, int status) {
    char line[96];
    int n = snprintf(line, sizeof line, "victim: %s ended before its time\n", how);
    write(2, line, (size_t)n);
    _exit(status);
}

static void *in_usleep(void *unused) {
    atomic_fetch_add(&g_started, 1);
    usleep(20000000);
    cut_short("usleep", 3);
    return unused;
}

static void *in_sleep(void *unused) {
    atomic_fetch_add(&g_started, 1);
    unsigned left = sleep(20);
    cut_short(left ? "sleep, with time left," : "sleep", 4);
    return unused;
}

static void *in_poll(void *unused) {
    atomic_fetch_add(&g_started, 1);
    int fds[2];
    if (pipe(fds) != 0) return unused;
    struct pollfd p = {.fd = fds[0], .events = POLLIN};
    poll(&p, 1, -1);
    cut_short("poll", 5);
    return unused;
}

static void lose_one(void) {
    g_lost = malloc(48);
    memset(g_lost, 1, 48);
    g_lost = 0;
}

int victim_asleep_at_exit(void) {
    void *(*fns[3])(void *) = {in_usleep, in_sleep, in_poll};
    for (int i = 0; i < 3; i++) {
        pthread_t t;
        if (pthread_create(&t, 0, fns[i], 0) != 0) { perror("victim: pthread_create"); return 2; }
        pthread_detach(t);
    }
    while (atomic_load(&g_started) < 3) usleep(1000);
    usleep(100000);  // each thread in its call by now
    lose_one();
    printf("victim: three threads asleep as main returns\n");
    fflush(stdout);
    return 0;
}

static void *churn(void *unused) {
    void *p[100];
    for (;;) {
        for (int i = 0; i < 100; i++) p[i] = malloc((size_t)(i * 103) % 10240);
        atomic_store(&g_started, 1);
        for (int i = 0; i < 100; i++) free(p[i]);
    }
    return unused;
}

int victim_freeing_at_exit(void) {
    pthread_t t;
    if (pthread_create(&t, 0, churn, 0) != 0) { perror("victim: pthread_create"); return 2; }
    pthread_detach(t);
    while (!atomic_load(&g_started)) usleep(1000);
    usleep(20000);
    lose_one();
    printf("victim: a thread allocating and freeing as main returns\n");
    fflush(stdout);
    return 0;
}

static __thread char *t_buffer;  // the only pointer to the thread's block
static pthread_key_t g_key;

// Set again until the last round of destructors, so that every other
// key's destructor (the shim's and the agent's) has run before it sleeps.
static void still_ending(void *round) {
    uintptr_t left = (uintptr_t)round;
    if (left > 1) { pthread_setspecific(g_key, (void *)(left - 1)); return; }
    atomic_store(&g_started, 1);
    sleep(20);  // in its key destructor as main returns
}

__attribute__((noinline)) static void fill_tls(void) {
    t_buffer = malloc(100);
    memset(t_buffer, 2, 100);
}

static void *keep_in_tls(void *unused) {
    fill_tls();
    pthread_setspecific(g_key, (void *)(uintptr_t)PTHREAD_DESTRUCTOR_ITERATIONS);
    return unused;
}

int victim_ending_thread_tls(void) {
    if (pthread_key_create(&g_key, still_ending) != 0) return 2;
    pthread_t t;
    if (pthread_create(&t, 0, keep_in_tls, 0) != 0) { perror("victim: pthread_create"); return 2; }
    pthread_detach(t);
    while (!atomic_load(&g_started)) usleep(1000);
    lose_one();
    printf("victim: a thread in its key destructor holds a 100-byte block in TLS as main returns\n");
    fflush(stdout);
    return 0;
}
