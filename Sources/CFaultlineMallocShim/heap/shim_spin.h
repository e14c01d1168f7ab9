// A small spinlock for sections a few stores long (the live-block lists,
// the arena's class lists). After a while it yields, so a thread preempted
// inside a section does not burn the others' time slices. Allocation-free;
// a plain int, so a forked child can simply store 0 into it. It holds the
// owner's thread id, so that a signal handler can tell its own thread holds
// it (exit from a handler that interrupted the shim must not wait for it).
#ifndef SHIM_SPIN_H
#define SHIM_SPIN_H

#include "shim_thread.h"

#include <sched.h>
#include <stdatomic.h>

static inline void shim_cpu_relax(void) {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/// Takes the lock.
static inline void shim_spin_lock(_Atomic int *l) {
    int me = (int)shim_tid();
    for (int spins = 0, unlocked = 0; !atomic_compare_exchange_weak_explicit(l, &unlocked, me, memory_order_acquire, memory_order_relaxed); spins++) {
        unlocked = 0;
        if (spins > 64) sched_yield();
        else shim_cpu_relax();
    }
}

/// Releases it.
static inline void shim_spin_unlock(_Atomic int *l) { atomic_store_explicit(l, 0, memory_order_release); }

/// 1 when the calling thread holds the lock.
static inline int shim_spin_held_here(_Atomic int *l) { return atomic_load_explicit(l, memory_order_relaxed) == (int)shim_tid(); }

#endif
