#include "sampled_register.h"
#include "victim_event_loop.h"
#include "victim_leak_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) static void spin_holding(void) {
    char *b = malloc(99);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        unsigned long n = 10000000;
#if defined(__x86_64__)
        // b sits in r12 for the whole loop (clang and gcc at -O0 keep it in
        // memory otherwise, and a sample would rarely catch it in a register).
        __asm__ volatile("mov %1, %%r12\n1:\n\tdec %0\n\tjnz 1b\n\txor %%r12d, %%r12d" : "+r"(n) : "r"(b) : "r12", "cc");
#else
        for (; n; n--) __asm__ volatile("" : "+r"(b));
#endif
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 600000000L);
    b = 0;
}

int victim_sampled_register(void) {
    // Idle first, as an event loop does: inferred hang mode samples a
    // spinning main only once it has seen it wait for events.
    victim_idle_like_event_loop(800);
    spin_holding();
    victim_clear_stack();
    printf("victim: held a 99-byte block in a register for 600 ms of CPU, then lost it\n");
    return 0;
}
