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

/// Which of a thread's two tables: the frame-pointer walks' memo, libunwind's cache.
enum { MEMO = 0, CACHE = 1 };

/// A thread's tables: counts, then the memo's MEMO_ENTRIES entries of
/// `stride[MEMO]` bytes (unless every stack is libunwind's), then the
/// cache's CACHE_ENTRIES entries of `stride[CACHE]` bytes (when libunwind
/// takes some stacks). With the auto unwinder a thread has both.
typedef struct stack_cache {
    uint64_t hits[2], misses[2];
    size_t stride[2];
    size_t offset[2];  ///< of each table's first entry from the start
    size_t map_bytes;
    uint8_t victim[2][CACHE_ENTRIES / CACHE_WAYS];  ///< per table and set, the way replaced next
} stack_cache;

static _Atomic uint64_t g_hits[2], g_misses[2];

/// Frame-pointer stacks: MEMO_ENTRIES recent ones per thread, in sets of
/// CACHE_WAYS, keyed like the cache's (return address and stack pointer).
#define MEMO_SET_BITS 6
#define MEMO_ENTRIES (CACHE_WAYS << MEMO_SET_BITS)
_Static_assert(MEMO_ENTRIES / CACHE_WAYS <= CACHE_ENTRIES / CACHE_WAYS, "stack_cache.victim covers the memo's sets");

/// One remembered frame-pointer walk; stack_depth pairs of words follow,
/// one per frame: where the record of the next frame lies (the saved frame
/// pointer in this one's record, as the walk used it) and the return
/// address, each inverted. A leak check reads the memo like any memory:
/// inverted, no word can point into a block (a bogus frame's "return
/// address" may be a heap pointer; the depot is not read).
typedef struct memo_entry {
    uintptr_t sp0;  ///< the program's stack pointer at the allocator call
    uint32_t id;    ///< the depot id of the walked return addresses
    uint32_t n;     ///< frames (0: empty)
} memo_entry;

static inline int uses_memo(void) { return !shim_stack_libunwind; }
static inline int uses_cache(void) { return shim_stack_libunwind || shim_stack_libunwind_fallback; }

// The thread's cache, mapped on first use (mmap: no allocation). NULL
// while the thread exits or when the mapping fails (then it is not tried
// again: the thread unwinds every stack).
static __attribute__((noinline)) stack_cache *map_thread_cache(void) {
    stack_cache *c = shim_self.stack_cache;
    if (c) return c == (stack_cache *)MAP_FAILED ? 0 : c;
    if (shim_self.batch_off) return 0;
    if (__builtin_expect(!shim_self.exit_watched, 0)) shim_init_watch_thread();
    if (!shim_self.exit_watched) return 0;  // before the constructor: no way to unmap it
    size_t d = (size_t)shim_cfg.stack_depth;
    size_t memo_stride = uses_memo() ? sizeof(memo_entry) + d * 2 * sizeof(uintptr_t) : 0;
    size_t cache_stride = uses_cache() ? (sizeof(cache_entry) + d * sizeof(uint32_t) + 7) & ~(size_t)7 : 0;
    size_t memo_at = (sizeof(stack_cache) + 7) & ~(size_t)7, cache_at = memo_at + MEMO_ENTRIES * memo_stride;
    size_t bytes = cache_at + CACHE_ENTRIES * cache_stride;
    void *p = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    shim_self.stack_cache = p;
    if (p == MAP_FAILED) return 0;
    c = p;
    c->stride[MEMO] = memo_stride;
    c->stride[CACHE] = cache_stride;
    c->offset[MEMO] = memo_at;
    c->offset[CACHE] = cache_at;
    c->map_bytes = bytes;
    return c;
}

static inline stack_cache *thread_cache(void) {
    stack_cache *c = shim_self.stack_cache;
    if (__builtin_expect(c != 0 && c != (stack_cache *)MAP_FAILED, 1)) return c;
    return map_thread_cache();
}

static inline unsigned set_for(uintptr_t ret0, uintptr_t sp0, unsigned bits) {
    uint64_t h = ((uint64_t)ret0 ^ ((uint64_t)sp0 << 7)) * 0x9E3779B97F4A7C15ull;
    return (unsigned)(h >> (64 - bits));
}
_Static_assert(CACHE_ENTRIES / CACHE_WAYS == 1 << CACHE_SET_BITS, "set_for picks one of the sets");

static inline cache_entry *entry_at(stack_cache *c, unsigned set, unsigned way) {
    return (cache_entry *)((char *)c + c->offset[CACHE] + (size_t)(set * CACHE_WAYS + way) * c->stride[CACHE]);
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
    unsigned way = c->victim[CACHE][set];
    for (unsigned k = 0; k < CACHE_WAYS; k++) {
        unsigned w = (c->victim[CACHE][set] + k) % CACHE_WAYS;
        if (entry_at(c, set, w)->learned != LEARNED) { way = w; break; }
    }
    c->victim[CACHE][set] = (uint8_t)((way + 1) % CACHE_WAYS);
    return way;
}

static inline memo_entry *memo_at(stack_cache *c, unsigned set, unsigned way) {
    return (memo_entry *)((char *)c + c->offset[MEMO] + (size_t)(set * CACHE_WAYS + way) * c->stride[MEMO]);
}

static inline uintptr_t *memo_words(memo_entry *e) { return (uintptr_t *)(e + 1); }

// 1 when a walk from `fp` (sp0 = fp + 16, the entry's) would find the
// frames of `e`: each record it would read holds the same saved frame
// pointer (but the last, which it reads only to stop) and return address
// as when `e` was walked, and the walk's own rules stop it after the last
// one again. Every record read lies where that walk found one, in this
// thread's stack between fp and its top.
static inline int walks_as_before(memo_entry *e, uintptr_t fp, int max) {
    const uintptr_t *w = memo_words(e);
    const uintptr_t *f = (const uintptr_t *)fp;
    int last = (int)e->n - 1;
    for (int i = 0; i < last; i++, w += 2) {
        if (f[0] != ~w[0] || f[1] != ~w[1]) return 0;
        f = (const uintptr_t *)~w[0];
    }
    if (f[1] != ~w[1]) return 0;
    if (last + 1 >= max) return 1;
    uintptr_t next = f[0];
    if (!shim_fp_next_ok(next, (uintptr_t)f, shim_self.stack_hi)) return 1;
    uintptr_t ret = ((const uintptr_t *)next)[1];
    return !shim_fp_ret_ok(ret) || (last == 0 && !shim_fp_in_object(ret));
}

// 1 when the auto unwinder hands a walk of `n` frames to libunwind: the
// walk could not leave frame 0 (the allocator's caller keeps no frame
// pointers: Debian's perl, groff and python gave leak groups of one frame,
// `Perl_safesysmalloc`, `operator new`; or no walkable stack).
static inline int libunwind_instead(int n) { return n == 1 && shim_stack_libunwind_fallback && shim_cfg.stack_depth > 1; }

/// What fp_walk and fp_walk_and_remember return for a walk libunwind must
/// redo: the caller calls libunwind_record itself, so that libunwind's
/// unwind passes no more of the shim's frames than with the libunwind
/// unwinder (it looks for the program's frame among the first few).
#define LIBUNWIND_INSTEAD UINT32_MAX

// A frame-pointer stack walked (no memo, or frame 0 alone).
static __attribute__((noinline)) uint32_t fp_walk(uintptr_t fp) {
    uintptr_t pcs[SHIM_MAX_STACK_DEPTH];
    int n = shim_walk_frame_pointers(fp, pcs, shim_cfg.stack_depth);
    if (libunwind_instead(n)) return LIBUNWIND_INSTEAD;
    return shim_depot_put(pcs, n);
}

// A frame-pointer stack not in the memo: walked, stored in the depot (a
// hash over its frames, a bucket and an entry) and remembered in `set`.
static __attribute__((noinline)) uint32_t fp_walk_and_remember(stack_cache *c, uintptr_t fp, unsigned set) {
    uintptr_t pcs[SHIM_MAX_STACK_DEPTH], frames[SHIM_MAX_STACK_DEPTH];
    int n = shim_walk_frame_pointers_at(fp, pcs, frames, shim_cfg.stack_depth);
    // Not remembered: the memo would vouch for frame 0 alone.
    if (libunwind_instead(n)) return LIBUNWIND_INSTEAD;
    c->misses[MEMO]++;
    uint32_t id = shim_depot_put(pcs, n);
    if (id == 0 || frames[0] == 0) return id;
    unsigned way = c->victim[MEMO][set];
    c->victim[MEMO][set] = (uint8_t)((way + 1) % CACHE_WAYS);
    memo_entry *e = memo_at(c, set, way);
    // Emptied first and filled last: a signal handler that leaves the
    // shim by longjmp in between leaves an empty entry, not a mismatched
    // one. (One that allocates here records no stack: the guard is held.)
    e->n = 0;
    atomic_signal_fence(memory_order_seq_cst);
    uintptr_t *w = memo_words(e);
    for (int i = 0; i < n; i++) {
        w[2 * i] = ~(i + 1 < n ? frames[i + 1] : 0);
        w[2 * i + 1] = ~pcs[i];
    }
    e->sp0 = fp + 16;
    e->id = id;
    atomic_signal_fence(memory_order_seq_cst);
    e->n = (uint32_t)n;
    return id;
}

// A libunwind stack, through the cache when libgcc can find the slots.
static __attribute__((noinline)) uint32_t libunwind_record(uintptr_t fp) {
    if (!shim_stack_has_slots()) return unwind_and_store(fp);
    uintptr_t ret0 = ((uintptr_t *)fp)[1], sp0 = fp + 16;
    // Only on the thread's own stack (not a signal stack or a coroutine's),
    // whose every word up to stack_hi can be read.
    stack_cache *c = thread_cache();
    if (!c || !shim_thread_bounds() || sp0 < shim_self.stack_lo || sp0 >= shim_self.stack_hi) return unwind_and_store(fp);
    unsigned set = set_for(ret0, sp0, CACHE_SET_BITS);
    cache_entry *seen[CACHE_WAYS];
    int nseen = 0;
    for (unsigned w = 0; w < CACHE_WAYS; w++) {
        cache_entry *e = entry_at(c, set, w);
        if (e->ret0 != ret0 || e->sp0 != sp0) continue;
        if (e->learned == LEARNED && still_there(e, sp0)) {
            c->hits[CACHE]++;
            return e->id;
        }
        seen[nseen++] = e;
    }
    c->misses[CACHE]++;
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

// Frame-pointer stacks: the walk of a stack met before from the same
// return address and stack pointer is checked word by word against the
// thread's memo instead of made again, and its depot id reused. With the
// auto unwinder, a walk that stops at frame 0 goes to libunwind.
uint32_t shim_stack_record(uintptr_t fp) {
    if (__builtin_expect(shim_self.stackless, 0)) return 0;  // the agent's install (shim_untracked.c)
    if (__builtin_expect(shim_stack_libunwind, 0)) return libunwind_record(fp);
    stack_cache *c = thread_cache();
    uint32_t id;
    // Frame 0 alone (no bounds, or a signal stack): nothing to remember.
    if (__builtin_expect(!c || !shim_fp_walkable((uintptr_t)__builtin_frame_address(0)), 0)) {
        id = fp_walk(fp);
    } else {
        uintptr_t ret0 = ((uintptr_t *)fp)[1], sp0 = fp + 16;
        unsigned set = set_for(ret0, sp0, MEMO_SET_BITS);
        for (unsigned w = 0; w < CACHE_WAYS; w++) {
            memo_entry *e = memo_at(c, set, w);
            if (e->sp0 == sp0 && e->n && memo_words(e)[1] == ~ret0 && walks_as_before(e, fp, shim_cfg.stack_depth)) {
                c->hits[MEMO]++;
                return e->id;
            }
        }
        id = fp_walk_and_remember(c, fp, set);
    }
    return __builtin_expect(id == LIBUNWIND_INSTEAD, 0) ? libunwind_record(fp) : id;
}

void shim_stack_cache_thread_exit(void) {
    stack_cache *c = shim_self.stack_cache;
    shim_self.stack_cache = MAP_FAILED;  // no new cache while exiting
    if (!c || c == (stack_cache *)MAP_FAILED) return;
    for (int t = MEMO; t <= CACHE; t++) {
        atomic_fetch_add_explicit(&g_hits[t], c->hits[t], memory_order_relaxed);
        atomic_fetch_add_explicit(&g_misses[t], c->misses[t], memory_order_relaxed);
    }
    munmap(c, c->map_bytes);
}

void shim_stack_cache_counts(int libunwind, uint64_t *hits, uint64_t *misses) {
    int t = libunwind ? CACHE : MEMO;
    *hits = atomic_load_explicit(&g_hits[t], memory_order_relaxed);
    *misses = atomic_load_explicit(&g_misses[t], memory_order_relaxed);
    stack_cache *c = shim_self.stack_cache;
    if (c && c != (stack_cache *)MAP_FAILED) {
        *hits += c->hits[t];
        *misses += c->misses[t];
    }
}
