#include "shim_released.h"

#include <stdatomic.h>

typedef struct entry {
    _Atomic uintptr_t user;  ///< 0: empty
    uint32_t alloc_stack, free_stack;
} entry;

_Static_assert(sizeof(entry) == 16, "a few bytes per released block");

static entry g_table[SHIM_RELEASED_SLOTS];
static atomic_int g_used;

/// Slots probed from an address's home slot.
#define PROBE 8u

static inline unsigned home(uintptr_t user) {
    return (unsigned)(((user >> 4) * 0x9E3779B97F4A7C15ull) >> 40) & (SHIM_RELEASED_SLOTS - 1);
}

void shim_released_note(const shim_block *b) {
    uintptr_t user = (uintptr_t)shim_block_user(b);
    unsigned h = home(user), at = h;
    for (unsigned i = 0; i < PROBE; i++) {
        unsigned s = (h + i) & (SHIM_RELEASED_SLOTS - 1);
        uintptr_t u = atomic_load_explicit(&g_table[s].user, memory_order_relaxed);
        if (u == 0 || u == user) { at = s; break; }
    }
    entry *e = &g_table[at];
    atomic_store_explicit(&e->user, 0, memory_order_release);
    e->alloc_stack = b->alloc_stack;
    e->free_stack = b->free_stack;
    atomic_store_explicit(&e->user, user, memory_order_release);
    if (!atomic_load_explicit(&g_used, memory_order_relaxed)) atomic_store_explicit(&g_used, 1, memory_order_relaxed);
}

int shim_released_find(const void *p, uint32_t *alloc_stack, uint32_t *free_stack) {
    if (!atomic_load_explicit(&g_used, memory_order_relaxed)) return 0;
    uintptr_t user = (uintptr_t)p;
    unsigned h = home(user);
    for (unsigned i = 0; i < PROBE; i++) {
        entry *e = &g_table[(h + i) & (SHIM_RELEASED_SLOTS - 1)];
        if (atomic_load_explicit(&e->user, memory_order_acquire) != user) continue;
        *alloc_stack = e->alloc_stack;
        *free_stack = e->free_stack;
        return atomic_load_explicit(&e->user, memory_order_acquire) == user;
    }
    return 0;
}

void shim_released_forget(const void *p) {
    if (!atomic_load_explicit(&g_used, memory_order_relaxed)) return;
    uintptr_t user = (uintptr_t)p;
    unsigned h = home(user);
    for (unsigned i = 0; i < PROBE; i++) {
        uintptr_t want = user;
        atomic_compare_exchange_strong_explicit(&g_table[(h + i) & (SHIM_RELEASED_SLOTS - 1)].user, &want, 0,
                                                memory_order_acq_rel, memory_order_relaxed);
    }
}
