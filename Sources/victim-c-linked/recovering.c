// Programs whose own fault handlers, installed before the agent, recover
// from faults with siglongjmp (a SIGSEGV probe, a test harness catching
// abort()), and later crash for real. The agent reports a fault first and
// then hands it to the handler it found at install.
#include "recovering.h"
#include "recovering_threads.h"
#include "faultline.h"

#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

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

static ucontext_t g_probe_ctx, g_handler_ctx;
static volatile sig_atomic_t g_resumed;
/// Whether the handler swaps to the probe's context (saving its own, never
/// resumed) rather than setting it.
static int g_swap;

// A probe's fault resumes the context the probe saved (setcontext or
// swapcontext); any other gives the signal its default action and returns.
static void context_handler(int sig) {
    if (g_probing) {
        g_resumed = 1;
        if (g_swap) swapcontext(&g_handler_ctx, &g_probe_ctx);
        else setcontext(&g_probe_ctx);
    }
    signal(sig, SIG_DFL);
}

// The classic way to let a crash go on: the default action back, the
// signal raised again, from inside the handler.
static void default_and_raise_handler(int sig) {
    signal(sig, SIG_DFL);
    raise(sig);
}

// A test harness's abort() catcher: every SIGABRT jumps back.
static void abort_catcher(int sig) {
    (void)sig;
    siglongjmp(g_env, 1);
}

// A test harness's SIGSEGV handler: a probe's fault fails the test by
// abort(), which the harness's abort() catcher (above) jumps back from, out
// of both handlers; any other fault gets the default action back.
static void failing_test_handler(int sig) {
    if (g_probing) abort();
    signal(sig, SIG_DFL);
}

// An interpreter's handler: every SIGSEGV jumps back to the checkpoint.
static void checkpoint_handler(int sig) {
    (void)sig;
    siglongjmp(g_env, 1);
}

// A crash callback with a bug: it stores through NULL while the agent
// writes the report.
static void faulting_callback(faultline_writer *w, void *ctx) {
    (void)w, (void)ctx;
    *g_null = 3;
}

// --- own-altstack-overflows: a stack-overflow handler on its own stack ------

/// The program's alternate stack: 16 KiB, a guard page below.
#define OWN_ALT_SIZE (16u << 10)
static char *g_alt_lo;
/// Overflows whose handler ran on the program's alternate stack, and the
/// most bytes of it used above the handler's frame.
static volatile sig_atomic_t g_on_own_alt;
static volatile long g_alt_used;

static void install_own_altstack(void) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *p = mmap(0, OWN_ALT_SIZE + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED || mprotect(p, page, PROT_NONE) != 0) { perror("victim: mmap"); exit(2); }
    g_alt_lo = p + page;
    stack_t ss = {.ss_sp = g_alt_lo, .ss_size = OWN_ALT_SIZE, .ss_flags = 0};
    if (sigaltstack(&ss, 0) != 0) { perror("victim: sigaltstack"); exit(2); }
}

// Needs its alternate stack: the thread's own is used up. Notes where it
// runs, then jumps back (an overflow it expects) or lets the fault end the
// process.
static void overflow_handler(int sig, siginfo_t *info, void *uc) {
    (void)info, (void)uc;
    volatile char here = 0;
    uintptr_t at = (uintptr_t)&here, lo = (uintptr_t)g_alt_lo;
    if (at >= lo && at < lo + OWN_ALT_SIZE) {
        g_on_own_alt++;
        long used = (long)(lo + OWN_ALT_SIZE - at);
        if (used > g_alt_used) g_alt_used = used;
    }
    if (g_probing) siglongjmp(g_env, 1);
    signal(sig, SIG_DFL);
}

/// Unbounded recursion; the volatile array keeps every frame on the stack.
__attribute__((noinline)) static int overflow_recurse(int depth) {
    volatile char pad[256];
    pad[0] = (char)depth;
    return overflow_recurse(depth + 1) + pad[0];
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

/// Reads an unmapped address; 1 when the handler resumed the saved context.
__attribute__((noinline)) static int probe_by_context(void) {
    g_probing = 1;
    g_resumed = 0;
    getcontext(&g_probe_ctx);  // the handler's setcontext or swapcontext comes back here
    if (!g_resumed) (void)*k_unmapped;
    g_probing = 0;
    return g_resumed;
}

__attribute__((noinline)) static void recovering_null_deref(void) {
    fprintf(stderr, "victim: now dereferencing NULL for real\n");
    *g_null = 1;
}

int victim_recovering_prepare(const char *command) {
    if (victim_threads_prepare(command)) return 1;
    if (!strcmp(command, "recover-then-crash") || !strcmp(command, "recover-many")) {
        install(SIGSEGV, probe_handler, 0);
        return 1;
    }
    if (!strcmp(command, "default-and-raise")) {
        install(SIGSEGV, 0, default_and_raise_handler);
        return 1;
    }
    if (!strcmp(command, "recover-then-report-fault")) {
        install(SIGSEGV, 0, checkpoint_handler);
        return 1;
    }
    if (!strcmp(command, "setcontext-recovered-then-crash") || !strcmp(command, "swapcontext-recovered-then-crash")) {
        g_swap = command[0] == 's' && command[1] == 'w';
        install(SIGSEGV, 0, context_handler);
        return 1;
    }
    if (!strcmp(command, "abort-in-handler-recovered-then-crash")) {
        install(SIGSEGV, 0, failing_test_handler);
        install(SIGABRT, 0, abort_catcher);
        return 1;
    }
    if (!strcmp(command, "own-altstack-overflows")) {
        install_own_altstack();
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = overflow_handler;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        if (sigaction(SIGSEGV, &sa, 0) != 0) { perror("victim: sigaction"); exit(2); }
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

// A probe recovered by the checkpoint handler, then abort() with a crash
// callback that faults: that fault, inside the agent's report writer, must
// not reach the program's handler (which would jump back here).
static void recover_then_report_fault(void) {
    static volatile int s_round;
    if (!sigsetjmp(g_env, 1)) (void)*k_unmapped;
    if (s_round++ > 0) {
        fprintf(stderr, "victim: the fault inside the report writer reached the program's handler\n");
        exit(3);
    }
    fprintf(stderr, "victim: recovered from the probe; abort() with a crash callback that faults\n");
    faultline_set_crash_callback(faulting_callback, 0);
    abort();
}

// Two stack overflows, each recovered by the program's handler on its own
// alternate stack, then a NULL store.
static void own_altstack_overflows(void) {
    for (int i = 0; i < 2; i++) {
        g_probing = 1;
        if (!sigsetjmp(g_env, 1)) overflow_recurse(0);
        g_probing = 0;
    }
    fprintf(stderr, "victim: the overflow handler ran on its own alternate stack for %d of 2 overflows, using at most %ld of its %u bytes\n",
            (int)g_on_own_alt, g_alt_used, OWN_ALT_SIZE);
    recovering_null_deref();
}

void victim_recovering_run(const char *command, const char *count) {
    if (victim_threads_run(command, count)) return;
    if (!strcmp(command, "recover-then-report-fault")) recover_then_report_fault();
    if (!strcmp(command, "default-and-raise")) recovering_null_deref();
    if (!strcmp(command, "own-altstack-overflows")) own_altstack_overflows();
    if (!strcmp(command, "setcontext-recovered-then-crash") || !strcmp(command, "swapcontext-recovered-then-crash")) {
        fprintf(stderr, "victim: recovered from %d of 1 probes by %s\n", probe_by_context(), g_swap ? "swapcontext" : "setcontext");
        recovering_null_deref();
        return;
    }
    if (!strcmp(command, "abort-in-handler-recovered-then-crash")) {
        fprintf(stderr, "victim: recovered from %d of 1 probes by abort() in the SIGSEGV handler\n", probe_unmapped());
        recovering_null_deref();
        return;
    }
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
