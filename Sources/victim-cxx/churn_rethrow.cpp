// churn-rethrow: main throws and catches an exception, waits while three
// threads throw and catch thousands of their own (each throw takes a slot
// of the agent's throw records), then rethrows it (`throw;`) uncaught. The
// report must still give main's own throw site: throw records are kept per
// thread, so other threads' throws cannot push main's out, however many.
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

std::atomic<long> g_churned{0};
std::atomic<bool> g_stop{false};
volatile int g_always = 1;  // keeps the optimiser from seeing that the throws always happen

__attribute__((noinline)) void churn_throw_once() {
    try {
        if (g_always) throw std::runtime_error("churn");
    } catch (const std::exception &) {
        g_churned.fetch_add(1, std::memory_order_relaxed);
    }
}

void churn_body(int index) {
    char name[16];
    snprintf(name, sizeof name, "churner-%d", index);
    pthread_setname_np(pthread_self(), name);
    while (!g_stop.load(std::memory_order_relaxed)) churn_throw_once();
}

}  // namespace

__attribute__((noinline)) void throw_before_the_churn() {
    if (g_always) throw std::runtime_error("thrown on main before other threads threw thousands");
}

/// Throws, catches, lets three threads throw at least `churn` times, then
/// rethrows uncaught. The churners keep going until the process ends.
__attribute__((noinline)) void rethrow_after_the_churn(long churn) {
    try {
        throw_before_the_churn();
    } catch (...) {
        std::vector<std::thread> threads;
        for (int i = 0; i < 3; i++) threads.emplace_back(churn_body, i);
        for (int waited_ms = 0; g_churned.load() < churn && waited_ms < 10000; waited_ms++) usleep(1000);
        fprintf(stderr, "victim: churn-rethrow: other threads threw and caught %ld exceptions; rethrowing main's, uncaught\n",
                g_churned.load());
        for (auto &t : threads) t.detach();
        throw;
    }
}

/// `churn-rethrow [N]`: N throws by other threads (default 10000) between
/// main's throw and its rethrow.
int victim_churn_rethrow_main(int argc, char **argv) {
    rethrow_after_the_churn(argc > 2 ? atol(argv[2]) : 10000);
    return 1;
}
