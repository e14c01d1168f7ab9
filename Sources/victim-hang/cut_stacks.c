// cut-stacks: the main thread spins, about two thirds of its CPU time in a
// function with no unwind entry that also clears the frame pointer, so
// neither libunwind nor a frame-pointer walk can step out of it: those
// samples are one frame long, all alike (the loop is one instruction). The
// other third is in an ordinary C function, whose samples are whole. The
// hang report's culprit must be a whole stack (cut_stacks_whole_loop under
// victim_cmd_cut_stacks), however many cut ones there are
// (hang.cut-short-stacks). Swift's DispatchTime.now() has no unwind entry
// either: a busy loop that reads the time got a culprit naming none of the
// program's frames now and then (hang.swift-runloop).
#include "victim_event_loop.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__)
// No .cfi directives, so no unwind entry. `loop 1b` jumps to itself: every
// sample taken inside lands on the same instruction.
__asm__(".text\n"
        ".p2align 4\n"
        ".type cut_stacks_no_unwind_loop, @function\n"
        "cut_stacks_no_unwind_loop:\n"
        "    push %rbp\n"
        "    xor %ebp, %ebp\n"          // no frame chain either
        "    mov %rdi, %rcx\n"
        "1:  loop 1b\n"
        "    pop %rbp\n"
        "    ret\n"
        ".size cut_stacks_no_unwind_loop, .-cut_stacks_no_unwind_loop\n");
void cut_stacks_no_unwind_loop(uint64_t iterations);
#endif

static uint64_t thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

__attribute__((noinline)) static void cut_stacks_whole_loop(uint64_t iterations) {
    volatile uint64_t x = 0;
    for (uint64_t i = 0; i < iterations; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
}

// Iterations of `loop` that take about `ns` of CPU time (CPU, not wall
// time: under load the thread waits for a CPU between the two reads).
static uint64_t calibrate(void (*loop)(uint64_t), uint64_t ns) {
    uint64_t n = 100000, t;
    for (;;) {
        uint64_t t0 = thread_cpu_ns();
        loop(n);
        t = thread_cpu_ns() - t0;
        if (t >= 5000000ull) break;  // 5 ms: long enough to measure
        n *= 4;
    }
    return n * ns / t;
}

__attribute__((noinline)) static void cut_stacks_spin(int ms) {
#if defined(__x86_64__)
    uint64_t cut = calibrate(cut_stacks_no_unwind_loop, 650000), whole = calibrate(cut_stacks_whole_loop, 350000);
    for (uint64_t end = mono_ms() + (uint64_t)ms; mono_ms() < end;) {
        cut_stacks_no_unwind_loop(cut);
        cut_stacks_whole_loop(whole);
    }
#else
    (void)ms;
#endif
}

int victim_cmd_cut_stacks(int argc, char **argv, char **envp) {
#if !defined(__x86_64__)
    fprintf(stderr, "victim: cut-stacks needs x86_64\n");
    return 2;
#endif
    int ms = argc > 2 ? atoi(argv[2]) : 3000;
    victim_idle_like_event_loop(800);
    fprintf(stderr, "victim: spinning on the main thread for %d ms, two thirds of it where no unwinder can step out\n", ms);
    cut_stacks_spin(ms);
    fprintf(stderr, "victim: main thread responsive again\n");
    victim_idle_like_event_loop(400);
    return 0;
}
