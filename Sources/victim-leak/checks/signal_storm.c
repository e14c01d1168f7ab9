#include "signal_storm.h"
#include "victim_leak_check.h"

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 16
#define KEPT 64           // blocks each worker holds at a time
#define BURST 200

static atomic_int g_stop;
static atomic_int g_tids[MAX_THREADS];
static atomic_long g_pairs;

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/// Sizes from the shim's small classes to glibc's big blocks.
static size_t size_for(unsigned r) {
    static const size_t sizes[] = {8, 24, 48, 100, 250, 600, 1000, 2000, 5000, 70000};
    return sizes[r % (sizeof sizes / sizeof sizes[0])];
}

static void *worker(void *arg) {
    int me = (int)(long)arg;
    atomic_store(&g_tids[me], (int)syscall(SYS_gettid));
    void *kept[KEPT] = {0};
    unsigned r = (unsigned)me * 7919u + 1;
    long pairs = 0;
    while (!atomic_load_explicit(&g_stop, memory_order_relaxed)) {
        r = r * 1103515245u + 12345u;
        unsigned i = (r >> 8) % KEPT;
        switch ((r >> 4) % 4) {
        case 0: free(kept[i]); kept[i] = malloc(size_for(r >> 12)); break;
        case 1: free(kept[i]); kept[i] = calloc(1, size_for(r >> 12)); break;
        case 2: kept[i] = realloc(kept[i], size_for(r >> 12)); break;  // NULL: a malloc
        default: free(kept[i]); kept[i] = 0; break;
        }
        if (kept[i]) memset(kept[i], 1, 8);
        pairs++;
    }
    for (int i = 0; i < KEPT; i++) free(kept[i]);
    atomic_fetch_add(&g_pairs, pairs);
    return 0;
}

/// Waits until the report count passes `than` (`ms` at most); the count.
static int wait_for_more(const char *dir, int than, int ms) {
    uint64_t until = now_ms() + (uint64_t)ms;
    int n;
    while ((n = victim_leak_reports(dir)) <= than && now_ms() < until) usleep(2000);
    return n;
}

int victim_signal_storm(int threads, int bursts) {
    const char *dir = getenv("FAULTLINE_REPORT_DIR"), *s = getenv("FAULTLINE_LEAK_SIGNAL");
    if (!dir || !s || !*s) { fprintf(stderr, "victim: signal-storm needs FAULTLINE_REPORT_DIR and FAULTLINE_LEAK_SIGNAL (a number)\n"); return 2; }
    int sig = atoi(s);
    if (threads < 1 || threads > MAX_THREADS) threads = 4;
    pthread_t t[MAX_THREADS];
    for (int i = 0; i < threads; i++) pthread_create(&t[i], 0, worker, (void *)(long)i);
    for (int i = 0; i < threads; i++) while (!atomic_load(&g_tids[i])) sched_yield();
    int reports = victim_leak_reports(dir), first = reports, answered = 0;
    for (int b = 0; b < bursts; b++) {
        for (int k = 0; k < BURST; k++) {
            syscall(SYS_tgkill, (long)getpid(), (long)atomic_load(&g_tids[k % threads]), (long)sig);
            if (k % 8 == 0) sched_yield();  // let the workers get back into malloc
        }
        int n = wait_for_more(dir, reports, 10000);
        if (n <= reports) { printf("victim: burst %d of signals got no leak report within 10 s\n", b + 1); break; }
        answered++;
        reports = n;
    }
    atomic_store(&g_stop, 1);
    for (int i = 0; i < threads; i++) pthread_join(t[i], 0);
    // Let a check still running end (no new report for 300 ms) before exit.
    for (int n; (n = wait_for_more(dir, reports, 300)) > reports;) reports = n;
    printf("victim: %d threads allocated through %d bursts of %d leak signals, %d answered by a report; %ld malloc/free steps\n",
           threads, bursts, BURST, answered, atomic_load(&g_pairs));
    // The handler only asks the helper thread for a check: signals that come
    // while one is asked for or running fold into it (about 50 reports for
    // 2000 signals). A check run per signal, in the handler, writes one each.
    int signals = bursts * BURST, written = reports - first;
    printf("victim: %d reports for %d signals: %s\n", written, signals,
           written * 4 < signals ? "signals folded into the checks asked for" : "about a check per signal");
    return answered == bursts ? 0 : 1;
}
