#include "victim_startup_mask.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int pending(int sig) {
    uint64_t set = 0;
    return syscall(SYS_rt_sigpending, &set, sizeof set) == 0 && ((set >> (sig - 1)) & 1);
}

static int hold(int sig, int max_ms, int asleep_ms, int running_ms, volatile int *masked, int spin) {
    // Every signal, 32 and 33 too: pthread_sigmask would drop those two.
    uint64_t all = ~0ull, before = 0;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &before, sizeof all);
    if (masked) __atomic_store_n(masked, 1, __ATOMIC_SEQ_CST);
    uint64_t end = now_ms() + (uint64_t)max_ms;
    // poll, not usleep: a hang report does not ask a thread asleep in
    // nanosleep for its stack.
    while (!pending(sig) && now_ms() < end)
        if (!spin) poll(0, 0, 1);
    int came = pending(sig);
    if (came) {
        if (asleep_ms) usleep((useconds_t)asleep_ms * 1000u);
        for (uint64_t stop = now_ms() + (uint64_t)running_ms; now_ms() < stop;) {}
        // Said before the mask goes: the answer may be the process's last act.
        char name[16] = "?";
        pthread_getname_np(pthread_self(), name, sizeof name);
        fprintf(stderr, "victim: %s lets in the signal %d that came while it held the start-up mask\n", name, sig);
    }
    // The pending signal is delivered on the way out of this call, so the
    // answer's stack runs through the caller.
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &before, 0, sizeof before);
    return came;
}

__attribute__((noinline)) int victim_hold_startup_mask(int sig, int max_ms, int asleep_ms, int running_ms,
                                                       volatile int *masked) {
    return hold(sig, max_ms, asleep_ms, running_ms, masked, 0);
}

__attribute__((noinline)) int victim_spin_in_startup_mask(int sig, int max_ms) {
    return hold(sig, max_ms, 0, 0, 0, 1);
}

// Named so in the scenarios' expected frames.
__attribute__((noinline)) static void *held_thread(void *arg) {
    victim_held_thread *h = arg;
    pthread_setname_np(pthread_self(), h->name);
    victim_hold_startup_mask(SIGRTMIN + 8, h->max_ms, h->asleep_ms, h->running_ms, &h->masked);
    for (;;) pause();
    return arg;
}

void victim_start_held_threads(victim_held_thread *held, int n, int max_ms) {
    for (int i = 0; i < n; i++) {
        held[i].max_ms = max_ms;
        pthread_t t;
        pthread_create(&t, 0, held_thread, &held[i]);
    }
    for (int i = 0; i < n; i++)
        while (!__atomic_load_n(&held[i].masked, __ATOMIC_SEQ_CST)) usleep(1000);
}

static volatile int g_blocker_ready;

static void *lasting_blocker(void *unused) {
    pthread_setname_np(pthread_self(), "lasting-blocker");
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, 0);
    __atomic_store_n(&g_blocker_ready, 1, __ATOMIC_SEQ_CST);
    for (;;) pause();
    return unused;
}

void victim_start_lasting_blocker(void) {
    pthread_t blocker;
    pthread_create(&blocker, 0, lasting_blocker, 0);
    while (!__atomic_load_n(&g_blocker_ready, __ATOMIC_SEQ_CST)) usleep(1000);
}
