#include "shim_live.h"
#include "shim_depot.h"

#include <sched.h>
#include <stdatomic.h>

int shim_live_on = 1;

// One list per stripe, on its own cache line.
typedef struct stripe {
    _Atomic int lock;
    uint32_t pad;
    shim_block *first;
    uint64_t count;
    char fill[40];
} stripe;

static inline void cpu_relax(void) {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static stripe g_stripes[SHIM_LIVE_STRIPES];

// A spinlock: sections are a few stores long. After a while it yields, so a
// thread preempted inside one does not burn the others' time slices.
static inline void lock(stripe *s) {
    for (int spins = 0; atomic_exchange_explicit(&s->lock, 1, memory_order_acquire); spins++) {
        if (spins > 64) sched_yield();
        else cpu_relax();
    }
}
static inline void unlock(stripe *s) { atomic_store_explicit(&s->lock, 0, memory_order_release); }

static inline stripe *stripe_of(const shim_block *b) { return &g_stripes[b->alloc_tid % SHIM_LIVE_STRIPES]; }

void shim_live_insert(shim_block *b) {
    if (!shim_live_on) return;
    stripe *s = stripe_of(b);
    lock(s);
    b->live_prev = 0;
    b->live_next = s->first;
    if (s->first) s->first->live_prev = b;
    s->first = b;
    s->count++;
    unlock(s);
    shim_depot_account(b->alloc_stack, (int64_t)b->size, 1);
}

void shim_live_remove(shim_block *b) {
    if (!shim_live_on) return;
    stripe *s = stripe_of(b);
    lock(s);
    if (b->live_prev) b->live_prev->live_next = b->live_next;
    else if (s->first == b) s->first = b->live_next;
    if (b->live_next) b->live_next->live_prev = b->live_prev;
    b->live_prev = b->live_next = 0;
    s->count--;
    unlock(s);
    shim_depot_account(b->alloc_stack, -(int64_t)b->size, -1);
}

void shim_live_lock_all(void) {
    for (int i = 0; i < SHIM_LIVE_STRIPES; i++) lock(&g_stripes[i]);
}

void shim_live_unlock_all(void) {
    for (int i = SHIM_LIVE_STRIPES - 1; i >= 0; i--) unlock(&g_stripes[i]);
}

uint64_t shim_live_count(void) {
    uint64_t n = 0;
    for (int i = 0; i < SHIM_LIVE_STRIPES; i++) n += __atomic_load_n(&g_stripes[i].count, __ATOMIC_RELAXED);
    return n;
}

void shim_live_each(void (*fn)(const shim_block *b, void *ctx), void *ctx) {
    for (int i = 0; i < SHIM_LIVE_STRIPES; i++)
        for (const shim_block *b = g_stripes[i].first; b; b = b->live_next) fn(b, ctx);
}
