// victim-c crash-beside-starting-threads: main crashes while two threads
// are held where glibc has every new thread for its first instructions
// (every signal blocked, glibc's own 32 and 33 too). Each lets the stack
// request in once it is pending, as glibc's start_thread does when it sets
// the thread's mask: 'start-asleep' after 30 ms asleep, 'start-running'
// after 300 ms of running (a start-up the scheduler stretched). The crash
// report used to take both for threads that block the sample signal for
// good and list them without a stack. Thread 'lasting-blocker' blocks every
// signal for good (pthread_sigmask), as libdispatch workers do.
//
// crash-beside-stalled-starts: main crashes while threads 'stall-0' …
// 'stall-3' hold that mask and run 1.5 s once their request is pending:
// each is runnable and does not answer, so each may be waited for its full
// 1 s; the thread list's deadline must cut the list short.
#include "victim_startup_mask.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

void victim_null_deref(void);  // main.c

struct held {
    const char *name;
    int asleep_ms, running_ms;
    volatile int masked;
};

static void *held_thread(void *arg) {
    struct held *h = arg;
    pthread_setname_np(pthread_self(), h->name);
    victim_hold_startup_mask(SIGRTMIN + 8, 10000, h->asleep_ms, h->running_ms, &h->masked);
    for (;;) pause();
    return arg;
}

static volatile int g_blocker_ready;

/// Blocks every signal for good, as libdispatch's workers do
/// (pthread_sigmask: not 32 and 33), and waits.
static void *lasting_blocker(void *unused) {
    pthread_setname_np(pthread_self(), "lasting-blocker");
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, 0);
    __atomic_store_n(&g_blocker_ready, 1, __ATOMIC_SEQ_CST);
    for (;;) pause();
    return unused;
}

void victim_crash_beside_starting_threads(void) {
    static struct held held[] = {{"start-asleep", 30, 0, 0}, {"start-running", 0, 300, 0}};
    for (unsigned i = 0; i < sizeof held / sizeof held[0]; i++) {
        pthread_t t;
        pthread_create(&t, 0, held_thread, &held[i]);
    }
    pthread_t blocker;
    pthread_create(&blocker, 0, lasting_blocker, 0);
    while (!__atomic_load_n(&g_blocker_ready, __ATOMIC_SEQ_CST)) usleep(1000);
    for (unsigned i = 0; i < sizeof held / sizeof held[0]; i++)
        while (!__atomic_load_n(&held[i].masked, __ATOMIC_SEQ_CST)) usleep(1000);
    victim_null_deref();
}

void victim_crash_beside_stalled_starts(void) {
    static struct held held[] = {{"stall-0", 0, 1500, 0}, {"stall-1", 0, 1500, 0}, {"stall-2", 0, 1500, 0},
                                 {"stall-3", 0, 1500, 0}};
    for (unsigned i = 0; i < sizeof held / sizeof held[0]; i++) {
        pthread_t t;
        pthread_create(&t, 0, held_thread, &held[i]);
    }
    for (unsigned i = 0; i < sizeof held / sizeof held[0]; i++)
        while (!__atomic_load_n(&held[i].masked, __ATOMIC_SEQ_CST)) usleep(1000);
    victim_null_deref();
}
