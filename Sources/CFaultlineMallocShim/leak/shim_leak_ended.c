// Stacks of ended threads (shim_leak_ended.h): a fixed table, one entry per
// stack block (glibc reuses blocks, so a program that starts threads for
// ever fills only as many entries as it has stacks at once).
#include "shim_leak_ended.h"

#include <stdatomic.h>

#define MAX_ENDED 4096

static leak_ended_stack g_stacks[MAX_ENDED];
static _Atomic int g_count;        // entries claimed
static _Atomic uint8_t g_ready[MAX_ENDED];  // entry written

void shim_leak_thread_ended(uintptr_t lo, uintptr_t hi, uintptr_t tp, uint32_t tid) {
    if (hi <= lo) return;
    int n = atomic_load_explicit(&g_count, memory_order_acquire);
    if (n > MAX_ENDED) n = MAX_ENDED;
    for (int i = 0; i < n; i++) {
        if (atomic_load_explicit(&g_ready[i], memory_order_acquire) && g_stacks[i].hi == hi) {
            __atomic_store_n(&g_stacks[i].lo, lo, __ATOMIC_RELAXED);
            __atomic_store_n(&g_stacks[i].tp, tp, __ATOMIC_RELAXED);
            __atomic_store_n(&g_stacks[i].tid, tid, __ATOMIC_RELEASE);
            return;
        }
    }
    int slot = atomic_fetch_add(&g_count, 1);
    if (slot >= MAX_ENDED) return;  // full: later stacks stay roots (conservative)
    g_stacks[slot] = (leak_ended_stack){lo, hi, tp, tid};
    atomic_store_explicit(&g_ready[slot], 1, memory_order_release);
}

int shim_leak_ended_stacks(const leak_ended_stack **stacks) {
    *stacks = g_stacks;
    int n = atomic_load_explicit(&g_count, memory_order_acquire);
    if (n > MAX_ENDED) n = MAX_ENDED;
    // Entries claimed but not written yet are at the end, or between:
    // cut at the first one not ready.
    for (int i = 0; i < n; i++) if (!atomic_load_explicit(&g_ready[i], memory_order_acquire)) return i;
    return n;
}
