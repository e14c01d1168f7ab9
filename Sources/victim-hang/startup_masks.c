// spin-in-startup-masks: main hangs (spins) while it, 'start-asleep' and
// 'start-running' hold the mask glibc gives every new thread for its first
// instructions (every signal blocked, glibc's own 32 and 33 too), each until
// the hang report's stack request for it is pending. main then lets it in
// at once and spins on; start-asleep after 30 ms asleep, start-running
// after 300 ms of running (a start-up the scheduler stretched). The hang
// report used to take all three for threads that block the sample signal
// for good: main's stack (no tick could sample it) was not taken, and the
// two threads were listed with `capture_skipped: "signal_blocked"`, as
// 'lasting-blocker', which blocks every signal for good, still is.
//
// spin-beside-stalled-starts: main spins (a hang) while threads 'stall-0' …
// 'stall-3' hold that mask and run 1.5 s once their request is pending:
// each is runnable and silent past the 1 s a runnable thread is waited for,
// so the report's thread list must end at its deadline.
#include "victim_event_loop.h"
#include "victim_startup_mask.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static uint64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static volatile uint64_t g_sink;

__attribute__((noinline)) static void spin_after_the_request(uint64_t until_ms) {
    uint64_t x = 0;
    while (mono_ms() < until_ms) {
        for (int i = 0; i < 10000; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
        g_sink = x;
    }
}

int victim_cmd_spin_in_startup_masks(int argc, char **argv, char **envp) {
    int ms = argc > 2 ? atoi(argv[2]) : 3000;
    static victim_held_thread held[] = {{"start-asleep", 30, 0, 0}, {"start-running", 0, 300, 0}};
    victim_start_held_threads(held, (int)(sizeof held / sizeof held[0]), 20000);
    victim_start_lasting_blocker();
    victim_idle_like_event_loop(800);  // inferred mode watches main once it has waited for events
    fprintf(stderr, "victim: spinning on the main thread for %d ms in the start-up mask\n", ms);
    uint64_t end = mono_ms() + (uint64_t)ms;
    victim_spin_in_startup_mask(SIGRTMIN + 8, ms);
    spin_after_the_request(end);
    fprintf(stderr, "victim: main thread responsive again\n");
    victim_idle_like_event_loop(400);
    return 0;
}

int victim_cmd_spin_beside_stalled_starts(int argc, char **argv, char **envp) {
    int ms = argc > 2 ? atoi(argv[2]) : 3000;
    static victim_held_thread held[] = {{"stall-0", 0, 1500, 0}, {"stall-1", 0, 1500, 0}, {"stall-2", 0, 1500, 0},
                                             {"stall-3", 0, 1500, 0}};
    victim_start_held_threads(held, (int)(sizeof held / sizeof held[0]), 20000);
    victim_idle_like_event_loop(800);
    fprintf(stderr, "victim: spinning on the main thread for %d ms\n", ms);
    spin_after_the_request(mono_ms() + (uint64_t)ms);
    fprintf(stderr, "victim: main thread responsive again\n");
    victim_idle_like_event_loop(400);
    return 0;
}
