// Programs whose own fault handlers, installed before the agent, recover
// from faults with siglongjmp (a SIGSEGV probe, a test harness catching
// abort()), and later crash for real. The agent reports a fault first and
// then hands it to the handler it found at install.
#include "recovering.h"

#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static sigjmp_buf g_env;
static volatile sig_atomic_t g_probing;
static int *volatile g_null;
/// An address no mapping ever holds (the kernel keeps the first pages free).
static volatile int *const k_unmapped = (volatile int *)16;

// A probe's fault jumps back to the probe; any other gives the signal its
// default action and returns, so the fault happens again and kills us, as
// such handlers commonly do.
static void probe_handler(int sig, siginfo_t *info, void *uc) {
    (void)info, (void)uc;
    if (g_probing) siglongjmp(g_env, 1);
    signal(sig, SIG_DFL);
}

// The same, with a bug: a fault it is not probing for makes it store
// through NULL itself.
static void faulting_probe_handler(int sig, siginfo_t *info, void *uc) {
    (void)sig, (void)info, (void)uc;
    if (g_probing) siglongjmp(g_env, 1);
    fprintf(stderr, "victim: the program's own handler stores through NULL\n");
    *g_null = 2;
}

// A test harness's abort() catcher: every SIGABRT jumps back.
static void abort_catcher(int sig) {
    (void)sig;
    siglongjmp(g_env, 1);
}

static volatile sig_atomic_t g_returns;

// A handler that notes the signal and returns: after a raise(), the
// program goes on.
static void returning_handler(int sig) {
    (void)sig;
    g_returns++;
}

static void install(int sig, void (*action)(int, siginfo_t *, void *), void (*handler)(int)) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    if (action) { sa.sa_sigaction = action; sa.sa_flags = SA_SIGINFO; }
    else sa.sa_handler = handler;
    if (sigaction(sig, &sa, 0) != 0) { perror("victim: sigaction"); exit(2); }
}

/// Reads an unmapped address; 1 when the fault was recovered from.
__attribute__((noinline)) static int probe_unmapped(void) {
    g_probing = 1;
    int recovered = 1;
    if (!sigsetjmp(g_env, 1)) { (void)*k_unmapped; recovered = 0; }
    g_probing = 0;
    return recovered;
}

__attribute__((noinline)) static void recovering_null_deref(void) {
    fprintf(stderr, "victim: now dereferencing NULL for real\n");
    *g_null = 1;
}

int victim_recovering_prepare(const char *command) {
    if (!strcmp(command, "recover-then-crash") || !strcmp(command, "recover-many")) {
        install(SIGSEGV, probe_handler, 0);
        return 1;
    }
    if (!strcmp(command, "recover-then-crash-in-handler")) {
        install(SIGSEGV, faulting_probe_handler, 0);
        return 1;
    }
    if (!strcmp(command, "abort-recovered-then-crash")) {
        install(SIGABRT, 0, abort_catcher);
        return 1;
    }
    if (!strcmp(command, "trap-handled") || !strcmp(command, "abort-handled")) {
        install(command[0] == 't' ? SIGTRAP : SIGABRT, 0, returning_handler);
        return 1;
    }
    return 0;
}

static double seconds_since(const struct timespec *t0) {
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

void victim_recovering_run(const char *command, const char *count) {
    if (!strcmp(command, "abort-recovered-then-crash")) {
        if (!sigsetjmp(g_env, 1)) { fprintf(stderr, "victim: calling abort()\n"); abort(); }
        fprintf(stderr, "victim: recovered from abort()\n");
        recovering_null_deref();
        return;
    }
    if (!strcmp(command, "trap-handled") || !strcmp(command, "abort-handled")) {
        int sig = command[0] == 't' ? SIGTRAP : SIGABRT;
        long n = count ? atol(count) : 100;
        for (long i = 0; i < n; i++) raise(sig);
        fprintf(stderr, "victim: the handler returned from %d of %ld raised signals\n", (int)g_returns, n);
        exit(0);
    }
    long n = !strcmp(command, "recover-many") ? (count ? atol(count) : 10000) : 1;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long recovered = 0;
    for (long i = 0; i < n; i++) recovered += probe_unmapped();
    fprintf(stderr, "victim: recovered from %ld of %ld probes in %.3f s\n", recovered, n, seconds_since(&t0));
    recovering_null_deref();
}
