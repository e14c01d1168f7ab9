#include "shim_unmapped.h"

#include <stdatomic.h>

typedef struct kept {
    _Atomic uintptr_t user;  ///< 0 while empty or being written
    shim_block copy;
} kept;

static kept g_kept[SHIM_UNMAPPED_KEEP];
static atomic_uint g_next;
/// Entries ever written (0: lookups and forgets return at once).
static atomic_uint g_used;

void shim_unmapped_note(const shim_block *b) {
    // A heap block's address comes back often: the newest copy must be the one found.
    shim_unmapped_forget(shim_block_user(b));
    unsigned i = atomic_fetch_add_explicit(&g_next, 1, memory_order_relaxed) % SHIM_UNMAPPED_KEEP;
    kept *k = &g_kept[i];
    atomic_store_explicit(&k->user, 0, memory_order_release);
    k->copy = *b;
    atomic_store_explicit(&k->user, (uintptr_t)shim_block_user(b), memory_order_release);
    if (atomic_load_explicit(&g_used, memory_order_relaxed) < SHIM_UNMAPPED_KEEP)
        atomic_fetch_add_explicit(&g_used, 1, memory_order_relaxed);
}

int shim_unmapped_find(const void *p, shim_block *out) {
    if (!atomic_load_explicit(&g_used, memory_order_relaxed)) return 0;
    for (unsigned i = 0; i < SHIM_UNMAPPED_KEEP; i++) {
        kept *k = &g_kept[i];
        if (atomic_load_explicit(&k->user, memory_order_acquire) != (uintptr_t)p) continue;
        shim_block copy = k->copy;
        // Rewritten while we copied: the copy may be torn, so it is not used.
        if (atomic_load_explicit(&k->user, memory_order_acquire) != (uintptr_t)p) return 0;
        if (out) *out = copy;
        return 1;
    }
    return 0;
}

void shim_unmapped_forget(const void *user) {
    if (!atomic_load_explicit(&g_used, memory_order_relaxed)) return;
    for (unsigned i = 0; i < SHIM_UNMAPPED_KEEP; i++) {
        uintptr_t want = (uintptr_t)user;
        if (atomic_load_explicit(&g_kept[i].user, memory_order_relaxed) != want) continue;
        atomic_compare_exchange_strong_explicit(&g_kept[i].user, &want, 0, memory_order_acq_rel, memory_order_relaxed);
    }
}
