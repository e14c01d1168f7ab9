#include "shim_live.h"
#include "shim_depot.h"

#include "shim_spin.h"

#include <stdatomic.h>

int shim_live_on = 1;

// One list per stripe, on its own cache line, and the blocks this process
// inherited from the one that forked it (allocated before the fork).
typedef struct stripe {
    _Atomic int lock;
    uint32_t pad;
    shim_block *first;      // this process's own blocks, newest first
    shim_block *last;       // ... and the oldest of them
    shim_block *inherited;  // blocks allocated before the fork, in their own list
    uint64_t count;         // both lists
    char fill[24];
} stripe;
_Static_assert(sizeof(stripe) == 64, "a stripe is one cache line");

static stripe g_stripes[SHIM_LIVE_STRIPES];

static inline void lock(stripe *s) { shim_spin_lock(&s->lock); }
static inline void unlock(stripe *s) { shim_spin_unlock(&s->lock); }

static inline stripe *stripe_of(const shim_block *b) { return &g_stripes[b->alloc_tid % SHIM_LIVE_STRIPES]; }

void shim_live_insert(shim_block *b) {
    if (!shim_live_on) return;
    stripe *s = stripe_of(b);
    lock(s);
    shim_link *l = shim_block_link(b);
    l->prev = 0;
    l->next = s->first;
    if (s->first) shim_block_link(s->first)->prev = b;
    else s->last = b;
    s->first = b;
    s->count++;
    unlock(s);
    shim_depot_account(b->alloc_stack, (int64_t)b->size, 1);
}

/// The `prev` of a block left off the lists (never a header's address).
#define LEFT_OUT ((shim_block *)1)

void shim_live_leave_out(shim_block *b) { shim_block_link(b)->prev = LEFT_OUT; }

void shim_live_remove(shim_block *b) {
    if (!shim_live_on || shim_block_link(b)->prev == LEFT_OUT) return;
    stripe *s = stripe_of(b);
    lock(s);
    shim_link *l = shim_block_link(b);
    if (l->prev) shim_block_link(l->prev)->next = l->next;
    else if (s->first == b) s->first = l->next;
    else if (s->inherited == b) s->inherited = l->next;
    if (l->next) shim_block_link(l->next)->prev = l->prev;
    else if (s->last == b) s->last = l->prev;  // `last` is the own list's only
    l->prev = l->next = 0;
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

int shim_live_locked_here(void) {
    for (int i = 0; i < SHIM_LIVE_STRIPES; i++)
        if (shim_spin_held_here(&g_stripes[i].lock)) return 1;
    return 0;
}

uint64_t shim_live_count(void) {
    uint64_t n = 0;
    for (int i = 0; i < SHIM_LIVE_STRIPES; i++) n += __atomic_load_n(&g_stripes[i].count, __ATOMIC_RELAXED);
    return n;
}

void shim_live_each(void (*fn)(const shim_block *b, void *ctx), void *ctx) {
    for (int i = 0; i < SHIM_LIVE_STRIPES; i++) {
        for (const shim_block *b = g_stripes[i].first; b; b = shim_block_link(b)->next) fn(b, ctx);
        for (const shim_block *b = g_stripes[i].inherited; b; b = shim_block_link(b)->next) fn(b, ctx);
    }
}

void shim_live_each_origin(void (*fn)(const shim_block *b, int inherited, void *ctx), void *ctx) {
    for (int i = 0; i < SHIM_LIVE_STRIPES; i++) {
        for (const shim_block *b = g_stripes[i].first; b; b = shim_block_link(b)->next) fn(b, 0, ctx);
        for (const shim_block *b = g_stripes[i].inherited; b; b = shim_block_link(b)->next) fn(b, 1, ctx);
    }
}

void shim_live_after_fork_child(void) {
    // Each own list goes in front of the inherited one: two links written
    // per stripe, no walk (a walk would touch, and copy, every page that
    // holds a block the child shares with its parent).
    for (int i = 0; i < SHIM_LIVE_STRIPES; i++) {
        stripe *s = &g_stripes[i];
        if (!s->first) continue;
        shim_block_link(s->last)->next = s->inherited;
        if (s->inherited) shim_block_link(s->inherited)->prev = s->last;
        s->inherited = s->first;
        s->first = s->last = 0;
    }
}
