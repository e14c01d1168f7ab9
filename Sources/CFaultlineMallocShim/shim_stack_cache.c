#include "shim_stack_cache.h"
#include "shim_config.h"
#include "shim_depot.h"
#include "shim_stack.h"
#include "shim_stack_fp.h"
#include "shim_thread.h"

#include <stdatomic.h>
#include <sys/mman.h>

/// Entries per thread, in sets of CACHE_WAYS: a helper that allocates for
/// several callers at one depth (the same key, different chains) keeps a
/// stack for each of up to CACHE_WAYS of them. With 256 entries replaced
/// round-robin, the Swift compiler's front end missed on 34 % of its stacks
/// and git on 43 %; with 1024 and replaced_way, 26 % and 19 %.
#define CACHE_ENTRIES 1024
#define CACHE_WAYS 4
#define CACHE_SET_BITS 8

/// One cached stack; `slots` (stack_depth of them) follow. Its frames are
/// the depot's (by `id`).
typedef struct cache_entry {
    uintptr_t ret0;    ///< the program's return address (0: empty)
    uintptr_t sp0;     ///< its stack pointer at the call
    uint32_t id;       ///< the depot id
    uint32_t learned;  ///< SEEN_ONCE, LEARNED (slots filled) or UNLEARNABLE
} cache_entry;

enum { SEEN_ONCE = 0, LEARNED = 1, UNLEARNABLE = 2 };

/// A thread's cache: counts, then CACHE_ENTRIES entries of `stride` bytes.
typedef struct stack_cache {
    uint64_t hits, misses;
    size_t stride;
    size_t map_bytes;
    uint8_t victim[CACHE_ENTRIES / CACHE_WAYS];  ///< per set, the way replaced next
} stack_cache;

static _Atomic uint64_t g_hits, g_misses;

static inline size_t entry_stride(void) {
    size_t d = (size_t)shim_cfg.stack_depth;
    return (sizeof(cache_entry) + d * sizeof(uint32_t) + 7) & ~(size_t)7;
}

// The thread's cache, mapped on first use (mmap: no allocation). NULL
// while the thread exits or when the mapping fails (then it is not tried
// again: the thread unwinds every stack).
static stack_cache *thread_cache(void) {
    stack_cache *c = shim_self.stack_cache;
    if (__builtin_expect(c != 0, 1)) return c == (stack_cache *)MAP_FAILED ? 0 : c;
    if (shim_self.batch_off) return 0;
    if (__builtin_expect(!shim_self.exit_watched, 0)) shim_init_watch_thread();
    if (!shim_self.exit_watched) return 0;  // before the constructor: no way to unmap it
    size_t stride = entry_stride(), bytes = sizeof(stack_cache) + CACHE_ENTRIES * stride;
    void *p = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    shim_self.stack_cache = p;
    if (p == MAP_FAILED) return 0;
    c = p;
    c->stride = stride;
    c->map_bytes = bytes;
    return c;
}

static inline unsigned set_for(uintptr_t ret0, uintptr_t sp0) {
    uint64_t h = ((uint64_t)ret0 ^ ((uint64_t)sp0 << 7)) * 0x9E3779B97F4A7C15ull;
    return (unsigned)(h >> (64 - CACHE_SET_BITS));
}
_Static_assert(CACHE_ENTRIES / CACHE_WAYS == 1 << CACHE_SET_BITS, "set_for picks one of the sets");

static inline cache_entry *entry_at(stack_cache *c, unsigned set, unsigned way) {
    return (cache_entry *)((char *)(c + 1) + (size_t)(set * CACHE_WAYS + way) * c->stride);
}

static inline uint32_t *entry_slots(cache_entry *e) { return (uint32_t *)(e + 1); }

// 1 when every return address of `e`'s stack is still where it was found.
static inline int still_there(cache_entry *e, uintptr_t sp0) {
    const uintptr_t *pcs;
    int n = shim_depot_get(e->id, &pcs);
    const uint32_t *slots = entry_slots(e);
    for (int i = 1; i < n; i++)
        if (*(const uintptr_t *)(sp0 + slots[i]) != pcs[i]) return 0;
    return n > 0;
}

static uint32_t unwind_and_store(uintptr_t fp) {
    uintptr_t pcs[SHIM_MAX_STACK_DEPTH];
    int n = shim_stack_capture(fp, pcs, shim_cfg.stack_depth);
    return shim_depot_put(pcs, n);
}

// Learns where the return addresses of the stack `id` lie (a second walk,
// paid only for stacks seen twice) and keeps it in `e`; marks `e` as not
// learnable when that walk does not find the very stack libunwind found.
static void learn(cache_entry *e, uintptr_t fp, uint32_t id) {
    uintptr_t pcs[SHIM_MAX_STACK_DEPTH];
    uint32_t *slots = entry_slots(e);
    int n = shim_stack_capture_slots(fp, pcs, slots, shim_cfg.stack_depth);
    e->learned = UNLEARNABLE;
    // Compared with the depot's frames, not stored: a stack that differs
    // would sit in the depot with no block referring to it.
    const uintptr_t *found;
    if (n == 0 || shim_depot_get(id, &found) != n) return;
    for (int i = 0; i < n; i++) if (pcs[i] != found[i] || (i > 0 && slots[i] == SHIM_STACK_SLOT_UNKNOWN)) return;
    e->learned = LEARNED;
}

// The way a new stack takes: the next one round the set that holds no
// learned stack, so that stacks seen once (most of a compiler's are) do
// not push out the learned ones that hit, each of which cost a learning
// walk of about six unwinds; round-robin when all are learned.
static unsigned replaced_way(stack_cache *c, unsigned set) {
    unsigned way = c->victim[set];
    for (unsigned k = 0; k < CACHE_WAYS; k++) {
        unsigned w = (c->victim[set] + k) % CACHE_WAYS;
        if (entry_at(c, set, w)->learned != LEARNED) { way = w; break; }
    }
    c->victim[set] = (uint8_t)((way + 1) % CACHE_WAYS);
    return way;
}

// A frame-pointer stack: the walk inline, no calls but the depot's.
static uint32_t fp_record(uintptr_t fp) {
    uintptr_t pcs[SHIM_MAX_STACK_DEPTH];
    return shim_depot_put(pcs, shim_walk_frame_pointers(fp, pcs, shim_cfg.stack_depth));
}

uint32_t shim_stack_record(uintptr_t fp) {
    if (!shim_stack_libunwind) return fp_record(fp);
    if (!shim_stack_has_slots()) return unwind_and_store(fp);
    uintptr_t ret0 = ((uintptr_t *)fp)[1], sp0 = fp + 16;
    // Only on the thread's own stack (not a signal stack or a coroutine's),
    // whose every word up to stack_hi can be read.
    stack_cache *c = thread_cache();
    if (!c || !shim_thread_bounds() || sp0 < shim_self.stack_lo || sp0 >= shim_self.stack_hi) return unwind_and_store(fp);
    unsigned set = set_for(ret0, sp0);
    cache_entry *seen[CACHE_WAYS];
    int nseen = 0;
    for (unsigned w = 0; w < CACHE_WAYS; w++) {
        cache_entry *e = entry_at(c, set, w);
        if (e->ret0 != ret0 || e->sp0 != sp0) continue;
        if (e->learned == LEARNED && still_there(e, sp0)) {
            c->hits++;
            return e->id;
        }
        seen[nseen++] = e;
    }
    c->misses++;
    uint32_t id = unwind_and_store(fp);
    if (id == 0) return 0;
    // Seen once before from here: worth learning. Else remember it.
    for (int i = 0; i < nseen; i++) {
        if (seen[i]->id != id) continue;
        if (seen[i]->learned == SEEN_ONCE) learn(seen[i], fp, id);
        return id;
    }
    cache_entry *e = entry_at(c, set, replaced_way(c, set));
    e->ret0 = ret0;
    e->sp0 = sp0;
    e->id = id;
    e->learned = SEEN_ONCE;
    return id;
}

void shim_stack_cache_thread_exit(void) {
    stack_cache *c = shim_self.stack_cache;
    shim_self.stack_cache = MAP_FAILED;  // no new cache while exiting
    if (!c || c == (stack_cache *)MAP_FAILED) return;
    atomic_fetch_add_explicit(&g_hits, c->hits, memory_order_relaxed);
    atomic_fetch_add_explicit(&g_misses, c->misses, memory_order_relaxed);
    munmap(c, c->map_bytes);
}

void shim_stack_cache_counts(uint64_t *hits, uint64_t *misses) {
    *hits = atomic_load_explicit(&g_hits, memory_order_relaxed);
    *misses = atomic_load_explicit(&g_misses, memory_order_relaxed);
    stack_cache *c = shim_self.stack_cache;
    if (c && c != (stack_cache *)MAP_FAILED) {
        *hits += c->hits;
        *misses += c->misses;
    }
}
