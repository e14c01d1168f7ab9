#include "shim_live.h"
#include "shim_live_link.h"
#include "shim_depot.h"
#include "shim_config.h"

#include "shim_spin.h"
#include "shim_arena.h"
#include "shim_saferead.h"
#include "shim_guard.h"

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

// Growth mode's snapshots are periodic: each stack's live bytes are counted
// as blocks come and go. Otherwise shim_live_tally counts them when asked.
static inline int counted_per_call(void) { return shim_cfg.leak_growth_ms != 0; }

void shim_live_insert(shim_block *b, uint32_t magic) {
    if (!shim_live_on) { __atomic_store_n(&b->magic, magic, __ATOMIC_RELEASE); return; }
    stripe *s = stripe_of(b);
    lock(s);
    __atomic_store_n(&b->magic, magic, __ATOMIC_RELEASE);
    shim_link_put(shim_block_link(b), 0, s->first);
    if (s->first) shim_link_set_prev(shim_block_link(s->first), b);
    else s->last = b;
    s->first = b;
    s->count++;
    unlock(s);
    if (counted_per_call()) shim_depot_account(b->alloc_stack, (int64_t)b->size, 1);
}

/// The `prev` of a block left off the lists (never a header's address).
#define LEFT_OUT ((shim_block *)1)

void shim_live_leave_out(shim_block *b) { shim_block_link(b)->prev = LEFT_OUT; }

// 1 when the link and header in front of `q` can be read: in the arena's
// writable part (read directly), elsewhere through the kernel (a link
// overwritten by the program may point anywhere). `*link` receives its
// link and `*magic` its header's state tag.
static int readable_block(const shim_block *q, shim_link *link, uint32_t *magic) {
    uintptr_t a = (uintptr_t)q;
    // A guarded block may be aligned only as its size needs (shim_guard.c).
    if (!q || ((a & 15) && !shim_guard_owns(q)) || a < 4096 + SHIM_LINK_SIZE) return 0;
    if (shim_arena_owns(q)) {
        if (!shim_arena_readable_before(shim_block_user(q), SHIM_HEADER_SIZE + SHIM_LINK_SIZE)) return 0;
        *link = *shim_block_link(q);
        *magic = __atomic_load_n(&q->magic, __ATOMIC_RELAXED);
        return 1;
    }
    unsigned char raw[SHIM_LINK_SIZE + SHIM_HEADER_SIZE];
    if (shim_safe_read(shim_block_link(q), raw, sizeof raw) != 0) return 0;
    __builtin_memcpy(link, raw, sizeof *link);
    __builtin_memcpy(magic, raw + sizeof raw - sizeof *magic, sizeof *magic);
    return 1;
}

// readable_block for `q` named by a link; read directly when that link's
// tag holds: `q` is then a live member of a list whose lock is held, so
// mapped (shim_live_link.h).
static int named_block(const shim_block *q, int trusted, shim_link *link, uint32_t *magic) {
    if (!trusted) return readable_block(q, link, magic);
    *link = *shim_block_link(q);
    *magic = __atomic_load_n(&q->magic, __ATOMIC_RELAXED);
    return 1;
}

// 1 when `q` is the header of a live, linked block whose link and header
// can be read (readable_block) and whose state tag says live.
static int linked_block(const shim_block *q, shim_link *link) {
    uint32_t magic;
    return readable_block(q, link, &magic) && magic == shim_magic(q, SHIM_LIVE);
}

// The block after `b` in its list, 0 at the end or when the link is not
// to be followed. A block whose header was overwritten (an underflow from
// the block before it) is still a member when its link points back at
// `b`: the walk goes on through it, so one damaged header does not hide
// every older block from the leak scan, and the exit check can report it.
static const shim_block *next_of(const shim_block *b) {
    shim_link l;
    uint32_t magic;
    const shim_link *bl = shim_block_link(b);
    const shim_block *n = shim_link_next(bl);
    if (!n) return 0;
    return named_block(n, shim_link_holds(bl), &l, &magic) && shim_link_prev(&l) == b ? n : 0;
}

// 1 when the header of list member `b` is whole: tagged live and sealed.
static int whole(const shim_block *b) {
    return __atomic_load_n(&b->magic, __ATOMIC_RELAXED) == shim_magic(b, SHIM_LIVE) && shim_block_sealed(b);
}

// Mends stripe `s` around `b`, whose links are not to be trusted: the
// block whose `next` is `b` and the one whose `prev` is `b`, found by
// walking from both ends, are linked to each other.
static void mend(stripe *s, shim_block *b) {
    shim_block *before = 0, *after = 0;
    shim_block **heads[2] = {&s->first, &s->inherited};
    for (int h = 0; h < 2 && !before; h++) {
        if (*heads[h] == b) { before = b; break; }  // b heads the list: no block before
        for (shim_block *q = *heads[h]; q; q = (shim_block *)next_of(q))
            if (shim_link_next(shim_block_link(q)) == b) { before = q; break; }
    }
    shim_link l;
    for (shim_block *q = s->last; q && linked_block(q, &l); q = shim_link_prev(&l))
        if (shim_link_prev(&l) == b) { after = q; break; }
    if (before == b) {
        if (s->first == b) s->first = after;
        else s->inherited = after;
    } else if (before) {
        shim_link_set_next(shim_block_link(before), after);
    }
    if (after) shim_link_set_prev(shim_block_link(after), before == b ? 0 : before);
    else if (s->last == b) s->last = before == b ? 0 : before;
}

// 1 when `q`, named by a link of `b`, may be written: a live block, or one
// whose header was overwritten but whose own link points back at `b` (its
// `next` when it comes before, `prev` when after): a list member all the same.
static int neighbour(const shim_block *q, int trusted, shim_link *link, const shim_block *b, int after) {
    uint32_t magic;
    if (!named_block(q, trusted, link, &magic)) return 0;
    return magic == shim_magic(q, SHIM_LIVE) || (after ? shim_link_prev(link) : shim_link_next(link)) == b;
}

const shim_block *shim_live_remove(shim_block *b, uint32_t magic) {
    if (!shim_live_on || shim_block_link(b)->prev == LEFT_OUT) { __atomic_store_n(&b->magic, magic, __ATOMIC_RELAXED); return 0; }
    stripe *s = stripe_of(b);
    lock(s);
    __atomic_store_n(&b->magic, magic, __ATOMIC_RELAXED);
    shim_link *l = shim_block_link(b);
    shim_block *prev = shim_link_prev(l), *next = shim_link_next(l);
    int trusted = shim_link_holds(l);
    shim_link pl, nl;
    const shim_block *damaged = 0;
    int own = (prev ? neighbour(prev, trusted, &pl, b, 0) : (s->first == b || s->inherited == b)) &&
              (!next || neighbour(next, trusted, &nl, b, 1));
    if (__builtin_expect(!own, 0)) {
        // Its own links are not to be followed: mended around it.
        mend(s, b);
        damaged = b;
    } else {
        // A neighbour whose link does not point back was overwritten: the
        // unlink below rewrites that link with the right value.
        if (__builtin_expect(prev && shim_link_next(&pl) != b, 0)) damaged = prev;
        else if (__builtin_expect(next && shim_link_prev(&nl) != b, 0)) damaged = next;
        if (prev) shim_link_set_next(shim_block_link(prev), next);
        else if (s->first == b) s->first = next;
        else if (s->inherited == b) s->inherited = next;
        if (next) shim_link_set_prev(shim_block_link(next), prev);
        else if (s->last == b) s->last = prev;  // `last` is the own list's only
    }
    l->prev = l->next = 0;
    s->count--;
    unlock(s);
    if (counted_per_call()) shim_depot_account(b->alloc_stack, -(int64_t)b->size, -1);
    return damaged;
}

static void tally_one(const shim_block *b, void *ctx) {
    (void)ctx;
    shim_depot_account(b->alloc_stack, (int64_t)b->size, 1);
}

void shim_live_tally(void) {
    if (!shim_live_on || counted_per_call()) return;
    shim_live_lock_all();
    shim_depot_live_clear();
    shim_live_each(tally_one, 0);
    shim_live_unlock_all();
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

void shim_live_each_origin(void (*fn)(const shim_block *b, int inherited, void *ctx), void *ctx) {
    for (int i = 0; i < SHIM_LIVE_STRIPES; i++) {
        // A block whose header is not whole is not handed out (its size
        // would be followed), but the walk goes on through its links.
        for (const shim_block *b = g_stripes[i].first; b; b = next_of(b)) if (whole(b)) fn(b, 0, ctx);
        for (const shim_block *b = g_stripes[i].inherited; b; b = next_of(b)) if (whole(b)) fn(b, 1, ctx);
    }
}

void shim_live_each_damaged(void (*fn)(const shim_block *b, void *ctx), void *ctx) {
    for (int i = 0; i < SHIM_LIVE_STRIPES; i++) {
        for (const shim_block *b = g_stripes[i].first; b; b = next_of(b)) if (!whole(b)) fn(b, ctx);
        for (const shim_block *b = g_stripes[i].inherited; b; b = next_of(b)) if (!whole(b)) fn(b, ctx);
    }
}

typedef struct each_ctx { void (*fn)(const shim_block *b, void *ctx); void *ctx; } each_ctx;
static void each_one(const shim_block *b, int inherited, void *vctx) {
    (void)inherited;
    each_ctx *c = vctx;
    c->fn(b, c->ctx);
}

void shim_live_each(void (*fn)(const shim_block *b, void *ctx), void *ctx) {
    each_ctx c = {fn, ctx};
    shim_live_each_origin(each_one, &c);
}

void shim_live_after_fork_child(void) {
    // Each own list goes in front of the inherited one: two links written
    // per stripe, no walk (a walk would touch, and copy, every page that
    // holds a block the child shares with its parent).
    for (int i = 0; i < SHIM_LIVE_STRIPES; i++) {
        stripe *s = &g_stripes[i];
        if (!s->first) continue;
        shim_link_set_next(shim_block_link(s->last), s->inherited);
        if (s->inherited) shim_link_set_prev(shim_block_link(s->inherited), s->last);
        s->inherited = s->first;
        s->first = s->last = 0;
    }
}
