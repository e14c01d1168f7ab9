// Threads at work when main returns (busy_at_exit.h).
#include "busy_at_exit.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
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
