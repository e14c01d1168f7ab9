// Several threads whose faults overlap, in a program whose own SIGSEGV
// handler (installed before the agent) recovers with siglongjmp, as a JIT's
// write barrier or a wasm runtime's bounds check does on every thread, or
// with setcontext, or with a jump the agent cannot see (__builtin_longjmp,
// as a runtime's own assembly would). The first fault's report is written
// while the other threads' faults wait for it (docs/agent.md, "A program
// that recovers from faults").
#include "recovering_threads.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#define PROBE_THREADS 4

static __thread sigjmp_buf t_env;
static __thread ucontext_t t_ctx;
static __thread void *t_builtin_env[5];
static __thread volatile sig_atomic_t t_probing, t_left;
/// An address no mapping ever holds (the kernel keeps the first pages free).
static volatile int *const k_unmapped = (volatile int *)16;
static pthread_barrier_t g_round_start, g_round_end;
static long g_rounds;
static int g_recover;
/// Whether each probe raises SIGSEGV rather than reading the address.
static int g_raise;
/// How the handler leaves for the probe.
static enum { LEAVE_SIGLONGJMP, LEAVE_SETCONTEXT, LEAVE_UNSEEN } g_leave;

// This thread's probe is resumed; a fault it is not probing for gives the
// signal its default action and returns, so the fault happens again and
// ends the process.
static void thread_probe_handler(int sig, siginfo_t *info, void *uc) {
    (void)info, (void)uc;
    if (t_probing) {
        t_left = 1;
        if (g_leave == LEAVE_SETCONTEXT) setcontext(&t_ctx);
        if (g_leave == LEAVE_UNSEEN) __builtin_longjmp(t_builtin_env, 1);
        siglongjmp(t_env, 1);
    }
    signal(sig, SIG_DFL);
}

/// Faults: reads an unmapped address, or raises SIGSEGV.
__attribute__((noinline)) static void threaded_fault(void) {
    if (g_raise) raise(SIGSEGV);
    else (void)*k_unmapped;
}

/// Faults once; 1 when the handler resumed this probe.
__attribute__((noinline)) static int threaded_probe(void) {
    t_probing = g_recover;
    t_left = 0;
    if (g_leave == LEAVE_SETCONTEXT) {
        getcontext(&t_ctx);  // the handler's setcontext comes back here with t_left set
        if (!t_left) threaded_fault();
    } else if (g_leave == LEAVE_UNSEEN) {
        if (!__builtin_setjmp(t_builtin_env)) threaded_fault();
    } else if (!sigsetjmp(t_env, 1)) {
        threaded_fault();
    }
    t_probing = 0;
    return t_left;
}

/// Whether the threads wait for each other after every round, or only
/// start the first together and then probe on.
static int g_paced;

// Every thread faults in each round as soon as the barrier lets them go.
static void *prober(void *arg) {
    long *recovered = arg;
    for (long i = 0; i < g_rounds; i++) {
        if (i == 0 || g_paced) pthread_barrier_wait(&g_round_start);
        *recovered += threaded_probe();
        if (g_paced) pthread_barrier_wait(&g_round_end);
    }
    return 0;
}

static int is_threads_command(const char *command) {
    return !strcmp(command, "recover-threads") || !strcmp(command, "recover-raised-threads") ||
           !strcmp(command, "recover-setcontext-threads") || !strncmp(command, "recover-unseen-", 15) ||
           !strcmp(command, "crash-threads");
}

int victim_threads_prepare(const char *command) {
    if (!is_threads_command(command)) return 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = thread_probe_handler;
    sa.sa_flags = SA_SIGINFO;
    // A jump that does not put the probe's mask back (__builtin_longjmp)
    // would leave SIGSEGV blocked without the agent.
    if (!strncmp(command, "recover-unseen-", 15)) sa.sa_flags |= SA_NODEFER;
    if (sigaction(SIGSEGV, &sa, 0) != 0) { perror("victim: sigaction"); exit(2); }
    return 1;
}

int victim_threads_run(const char *command, const char *count) {
    if (!is_threads_command(command)) return 0;
    g_recover = command[0] == 'r';
    g_raise = !strcmp(command, "recover-raised-threads");
    g_leave = !strcmp(command, "recover-setcontext-threads") ? LEAVE_SETCONTEXT
              : !strncmp(command, "recover-unseen-", 15)     ? LEAVE_UNSEEN
                                                             : LEAVE_SIGLONGJMP;
    g_paced = strcmp(command, "recover-unseen-unpaced-threads") != 0;
    g_rounds = g_recover && count ? atol(count) : g_recover ? 50 : 1;
    pthread_barrier_init(&g_round_start, 0, PROBE_THREADS);
    pthread_barrier_init(&g_round_end, 0, PROBE_THREADS);
    pthread_t threads[PROBE_THREADS];
    long recovered[PROBE_THREADS] = {0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    fprintf(stderr, "victim: %d threads fault at once in each of %ld rounds\n", PROBE_THREADS, g_rounds);
    for (int i = 0; i < PROBE_THREADS; i++)
        if (pthread_create(&threads[i], 0, prober, &recovered[i]) != 0) { perror("victim: pthread_create"); exit(2); }
    long total = 0;
    for (int i = 0; i < PROBE_THREADS; i++) {
        pthread_join(threads[i], 0);
        total += recovered[i];
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    fprintf(stderr, "victim: recovered from %ld of %ld probes on %d threads in %.3f s\n", total,
            g_rounds * PROBE_THREADS, PROBE_THREADS, s);
    exit(0);
}
