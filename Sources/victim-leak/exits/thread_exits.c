#include "thread_exits.h"
#include "../leak_sites.h"
#include "victim_leak_check.h"
#include "victim_threads.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

// Loses the block on a thread of its own that has ended by the exit check:
// a stale copy of the pointer left in a register spill slot of this
// thread's stack (which victim_clear_stack cannot reach above its own
// frame) would otherwise make the scan call it reachable, depending on how
// the shim and the victim were compiled.
__attribute__((noinline)) static void *leaking_thread(void *unused) {
    leak_77();
    return 0;
}

int victim_thread_exits(void) {
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], 0, leaking_thread, 0);
    for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
    victim_clear_stack();
    printf("victim: 4 threads each lost 77 bytes and ended\n");
    return 0;
}

__attribute__((noinline)) static void *last_worker(void *unused) {
    if (!victim_main_thread_gone()) printf("victim: the main thread did not end within 5 s\n");
    fill_cache();
    pthread_t t;
    pthread_create(&t, 0, leaking_thread, 0);
    pthread_join(t, 0);
    victim_clear_stack();
    printf("victim: worker returns; it is the last thread\n");
    return 0;  // glibc calls exit(0) here: the program has no thread left
}

void victim_main_exits_first(void) {
    pthread_t t;
    pthread_create(&t, 0, last_worker, 0);
    printf("victim: main thread leaves with pthread_exit\n");
    pthread_exit(0);
}

__attribute__((noinline)) static void *small_stack_exiter(void *unused) {
    void *volatile held = malloc(123);  // only this frame knows it: reachable
    pthread_t t;
    pthread_create(&t, 0, leaking_thread, 0);
    pthread_join(t, 0);
    printf("victim: exiting from a thread with a small stack\n");
    fflush(stdout);
    exit(held ? 0 : 2);
}

int victim_small_stack_exit(size_t stack) {
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, stack);
    pthread_t t;
    if (pthread_create(&t, &a, small_stack_exiter, 0) != 0) { perror("victim: pthread_create"); return 2; }
    pthread_join(t, 0);
    return 1;  // not reached: the thread exits
}
