// A small spinlock for sections a few stores long (the live-block lists,
// the arena's class lists). After a while it yields, so a thread preempted
// inside a section does not burn the others' time slices. Allocation-free;
// a plain int, so a forked child can simply store 0 into it.
#ifndef SHIM_SPIN_H
#define SHIM_SPIN_H

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
    for (int spins = 0; atomic_exchange_explicit(l, 1, memory_order_acquire); spins++) {
        if (spins > 64) sched_yield();
        else shim_cpu_relax();
    }
}

/// Releases it.
static inline void shim_spin_unlock(_Atomic int *l) { atomic_store_explicit(l, 0, memory_order_release); }

#endif
