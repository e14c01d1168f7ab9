// A program whose SIGSEGV handler throws: an interpreter or a JIT that turns
// a fault into an exception caught around the code that faulted. The throw
// leaves the handler through the signal frame, a way the agent's longjmp
// interposers do not see (docs/agent.md, "A program that recovers from
// faults"). No -fnon-call-exceptions: clang accepts it but a load still gets
// no landing pad (a throw from the handler reached std::terminate), so the
// load is in a function of its own, called through a pointer the compiler
// cannot see into, and the call is what the try covers.
#include "throwing_handler.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

/// What the handler throws for a fault it was probing for.
struct probe_fault {};

constexpr int k_threads = 4;
/// An address no mapping ever holds (the kernel keeps the first pages free).
volatile int *const k_unmapped = (volatile int *)16;
int *volatile g_null;
thread_local volatile sig_atomic_t t_probing;
pthread_barrier_t g_round_start, g_round_end;
long g_rounds;

// Throws for a probe; any other fault gets the default action back and
// the handler returns, so it happens again and ends the process.
void throwing_handler(int sig) {
    if (t_probing) throw probe_fault();
    signal(sig, SIG_DFL);
}

__attribute__((noinline)) void read_address(volatile int *p) { (void)*p; }

/// Reads an unmapped address; 1 when the fault came back as probe_fault.
__attribute__((noinline)) int throwing_probe() {
    void (*volatile read)(volatile int *) = read_address;  // an opaque call: the try covers it
    int recovered = 0;
    t_probing = 1;
    try {
        read(k_unmapped);
    } catch (const probe_fault &) {
        recovered = 1;
    }
    t_probing = 0;
    return recovered;
}

__attribute__((noinline)) void throwing_null_deref() {
    fprintf(stderr, "victim: now dereferencing NULL for real\n");
    *g_null = 1;
}

void *prober(void *arg) {
    long *recovered = static_cast<long *>(arg);
    for (long i = 0; i < g_rounds; i++) {
        pthread_barrier_wait(&g_round_start);
        *recovered += throwing_probe();
        pthread_barrier_wait(&g_round_end);
    }
    return nullptr;
}

void run_threads() {
    pthread_barrier_init(&g_round_start, nullptr, k_threads);
    pthread_barrier_init(&g_round_end, nullptr, k_threads);
    pthread_t threads[k_threads];
    long recovered[k_threads] = {0};
    fprintf(stderr, "victim: %d threads fault at once in each of %ld rounds\n", k_threads, g_rounds);
    for (int i = 0; i < k_threads; i++)
        if (pthread_create(&threads[i], nullptr, prober, &recovered[i]) != 0) { perror("victim: pthread_create"); exit(2); }
    long total = 0;
    for (int i = 0; i < k_threads; i++) {
        pthread_join(threads[i], nullptr);
        total += recovered[i];
    }
    fprintf(stderr, "victim: recovered from %ld of %ld probes on %d threads\n", total, g_rounds * k_threads, k_threads);
    exit(0);
}

bool is_throwing_command(const char *command) {
    return !strcmp(command, "throw-recovered-then-crash") || !strcmp(command, "throw-recovered-threads");
}

}  // namespace

int victim_throwing_prepare(const char *command) {
    if (!is_throwing_command(command)) return 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = throwing_handler;
    // The throw never returns through sigreturn, which would unblock
    // SIGSEGV: without SA_NODEFER the next fault would find it blocked.
    sa.sa_flags = SA_NODEFER;
    if (sigaction(SIGSEGV, &sa, nullptr) != 0) { perror("victim: sigaction"); exit(2); }
    return 1;
}

void victim_throwing_run(const char *command, const char *count) {
    if (!strcmp(command, "throw-recovered-threads")) {
        g_rounds = count ? atol(count) : 50;
        run_threads();
    }
    fprintf(stderr, "victim: recovered from %d of 1 probes by a throw\n", throwing_probe());
    throwing_null_deref();
    exit(1);
}
