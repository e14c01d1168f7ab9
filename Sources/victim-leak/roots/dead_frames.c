#include "dead_frames.h"
#include "victim_leak_check.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

// 64 KiB of dead frame under the buried pointer's caller, 16 KiB of live
// frame over the held one: far more than the few KiB a futex wait, the
// scan's stop signal frame or exit's path to the check write below the
// holder, and far below the top of the stack, which the scan of the
// thread's static TLS (next to its thread pointer) also covers.
#define BURY_SLOTS (64 * 1024 / sizeof(void *))
#define HOLD_SLOTS (16 * 1024 / sizeof(void *))
// A pointer xor-ed with this is no pointer to the scan: the victim's own
// copy, to free the buried block after the check.
#define HIDE ((uintptr_t)0x5a5a5a5a5a5a5a5aull)

static uintptr_t g_buried_hidden;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static int g_held, g_checked;

__attribute__((noinline)) static void *dead_frame_block(void) { return malloc(111); }
__attribute__((noinline)) static void *deep_held_block(void) { return malloc(222); }

// Leaves the only pointer to a 111-byte block in the deepest slot of this
// frame, which is dead once it returns.
__attribute__((noinline)) static void bury_in_dead_frame(void) {
    void *volatile slots[BURY_SLOTS];
    slots[0] = dead_frame_block();
    g_buried_hidden = (uintptr_t)slots[0] ^ HIDE;
}

// Holds a 222-byte block at the bottom of a 16 KiB frame until main has
// checked, then frees it.
__attribute__((noinline)) static void hold_deep_until_checked(void) {
    void *volatile slots[HOLD_SLOTS];
    slots[0] = deep_held_block();
    pthread_mutex_lock(&g_lock);
    g_held = 1;
    pthread_cond_broadcast(&g_cond);
    while (!g_checked) pthread_cond_wait(&g_cond, &g_lock);
    pthread_mutex_unlock(&g_lock);
    free(slots[0]);
}

static void *holder_thread(void *unused) {
    bury_in_dead_frame();
    hold_deep_until_checked();
    return 0;
}

int victim_thread_stack_dead_frames(void) {
    victim_leak_check_fn check = victim_leak_check_needed();
    if (!check) return 2;
    pthread_t t;
    if (pthread_create(&t, 0, holder_thread, 0) != 0) { perror("victim: pthread_create"); return 2; }
    pthread_mutex_lock(&g_lock);
    while (!g_held) pthread_cond_wait(&g_cond, &g_lock);
    pthread_mutex_unlock(&g_lock);
    long lost = check();
    printf("victim: on-demand check while a thread holds a block 16 KiB down its stack and a dead frame below holds the only pointer to another: %ld lost\n", lost);
    pthread_mutex_lock(&g_lock);
    g_checked = 1;
    pthread_cond_broadcast(&g_cond);
    pthread_mutex_unlock(&g_lock);
    pthread_join(t, 0);
    free((void *)(g_buried_hidden ^ HIDE));
    return 0;
}

// Holds a 222-byte block at the bottom of a 16 KiB frame and exits.
__attribute__((noinline)) static void exit_holding_deep(void) {
    void *volatile slots[HOLD_SLOTS];
    slots[0] = deep_held_block();
    printf("victim: exiting from a 192 KiB stack that holds a block 16 KiB down and, in a dead frame below, the only pointer to another\n");
    fflush(stdout);
    exit(slots[0] ? 0 : 2);
}

static void *exiting_thread(void *unused) {
    bury_in_dead_frame();
    exit_holding_deep();
    return 0;
}

int victim_small_stack_exit_dead_frames(void) {
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 192 * 1024);  // under the 256 KiB the exit check wants: it switches stacks
    pthread_t t;
    if (pthread_create(&t, &a, exiting_thread, 0) != 0) { perror("victim: pthread_create"); return 2; }
    pthread_join(t, 0);
    return 2;  // not reached: the thread exits
}
