#include "shim_quarantine.h"
#include "shim_config.h"
#include "shim_pattern.h"
#include "shim_protect.h"
#include "shim_redzone.h"
#include "shim_real.h"
#include "shim_report.h"
#include "shim_thread.h"
#include "sigsafe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

/// Blocks released per lock hold. Their ring entries are on the stack of
/// the thread that frees (16 bytes each): 256 of them (4 KiB) overflowed a
/// 16 KiB thread stack, whose static TLS leaves it about 6 KiB, at its exit
/// flush (leaks.small-stack-libunwind).
#define RELEASE_BATCH 64

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
/// A held block and what it is charged (kept here so that releasing the
/// oldest never touches its cold memory under the lock). `cost` also
/// carries the block's size (ENTRY_SIZE), so the release knows which lines
/// of the cold block it will read before it reads any: the header, the
/// scribbled bytes and the red zone, asked for together (issue 29: the
/// red zone's first line, one miss after another, was half of
/// release_batch). 16 bytes still: the ring is charged to the budget.
typedef struct ring_entry { shim_block *block; uint64_t cost; } ring_entry;

static ring_entry *g_ring;
static size_t g_ring_cap;    // slots (max_count + one thread batch + 1)
static size_t g_head;        // oldest
static size_t g_tail;        // next free slot
static size_t g_count;
static size_t g_bytes;
static size_t g_max_bytes;
static size_t g_max_count;
static size_t g_peak_bytes;
static size_t g_peak_count;
static uint64_t g_total_released;
// Big blocks leave sooner (FAULTLINE_QUARANTINE_BIG_BYTES, issue 29 round
// 5): blocks charged SHIM_QUARANTINE_BIG_FROM bytes up to
// SHIM_PROTECT_FROM (long scribbles, not page-protected) are also listed
// here, oldest first, by their ring slot; once they hold more than
// g_big_max bytes the oldest leaves out of turn and its slot becomes a
// hole, still charged until it reaches the head. So small blocks stay as
// long as with one FIFO (the last 16 MB of frees of all sizes: holding
// them longer cost the mix more than the big blocks' bytes), and a big
// block's scribble, written at free and read back at release, is still in
// the cache: each was one cold run of lines after a 16 MB stay.
#define SHIM_QUARANTINE_BIG_FROM 1024u
static uint32_t *g_big;      // ring slots of the held big blocks (a ring of g_big_cap)
static size_t g_big_cap, g_big_head, g_big_count;
static size_t g_big_bytes;   // what the held big blocks are charged
static size_t g_big_max;     // 0: no split
static size_t g_hole_bytes;  // charged to holes (released out of turn)
// Blocks at the ring's head that were held before this process was forked
// from its parent. A change in one may be the parent's write, which the
// parent reports itself: the child leaves them unchecked rather than
// report the parent's bug as its own (and halt for it).
static size_t g_inherited;
/// Marks a released ring entry as inherited (in its cost's top bit).
#define INHERITED (1ull << 63)
/// The bytes a block is charged: bits 0-46 of `cost` (user space is 47 bits).
#define COST_MASK ((1ull << 47) - 1)
/// Bits 47-62 of `cost`: the block's size, or 0 when it is 0 or 64 KiB or
/// more (those may have protected pages inside: release_batch must not
/// read ahead in them).
#define ENTRY_SIZE_SHIFT 47
#define ENTRY_SIZE_MAX 0xffffu
_Static_assert(SHIM_PROTECT_FROM - 1 <= ENTRY_SIZE_MAX, "sizes below SHIM_PROTECT_FROM fit in a ring entry");

// A ring entry's `cost` word for block `b` charged `cost`.
static inline uint64_t entry_cost(const shim_block *b, uint64_t cost) {
    uint64_t size = b->size < SHIM_PROTECT_FROM ? b->size : 0;
    return cost | size << ENTRY_SIZE_SHIFT;
}
static inline size_t entry_size(uint64_t word) { return (size_t)(word >> ENTRY_SIZE_SHIFT) & ENTRY_SIZE_MAX; }
/// 1 when a block charged `cost` leaves by the big blocks' budget too.
static inline int is_big(uint64_t cost) { return g_big_max && cost >= SHIM_QUARANTINE_BIG_FROM && cost < SHIM_PROTECT_FROM; }

int shim_quarantine_init(size_t max_bytes, size_t max_count) {
    if (g_ring) return 0;
    // No more slots than the budget can fill with blocks of 64 bytes, so
    // the ring (charged to the budget) takes at most a quarter of a small
    // budget instead of all of it.
    size_t slots = max_count < max_bytes / 64 ? max_count : max_bytes / 64;
    size_t cap = slots + SHIM_THREAD_BATCH + 1;
    // The split needs room for a few big blocks, and a budget it shortens.
    size_t big = shim_cfg.quarantine_big_bytes;
    if (big < SHIM_PROTECT_FROM || big >= max_bytes) big = 0;
    // Held big blocks: at most one over the budget, each of at least BIG_FROM.
    size_t big_cap = big ? big / SHIM_QUARANTINE_BIG_FROM + 2 : 0;
    if (big_cap > cap) big_cap = cap;
    size_t ring_bytes = cap * sizeof(ring_entry) + big_cap * sizeof(uint32_t);
    void *p = mmap(0, ring_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return -1;
    g_ring_cap = cap;
    g_big = big ? (uint32_t *)((ring_entry *)p + cap) : 0;
    g_big_cap = big_cap;
    g_big_max = big;
    // The ring itself is charged against the budget.
    g_max_bytes = max_bytes > ring_bytes ? max_bytes - ring_bytes : 0;
    g_max_count = slots;
    atomic_store_explicit((_Atomic(ring_entry *) *)&g_ring, (ring_entry *)p, memory_order_release);
    // Below the smallest block (a header and nothing: 32 bytes) every block
    // is too big to hold and leaves at once, which must be said as well.
    return g_max_bytes < SHIM_HEADER_SIZE && max_bytes > 0 && max_count > 0 ? 1 : 0;
}

// Threads that may hold collected frees, so the exit check can see them
// too; guarded by g_lock. A thread past the limit is not seen.
#define MAX_THREADS 1024
static shim_thread *g_threads[MAX_THREADS];
static int g_thread_count;

void shim_quarantine_thread_start(void) {
    pthread_mutex_lock(&g_lock);
    if (g_thread_count < MAX_THREADS) g_threads[g_thread_count++] = &shim_self;
    pthread_mutex_unlock(&g_lock);
}

void shim_quarantine_thread_end(void) {
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < g_thread_count; i++)
        if (g_threads[i] == &shim_self) { g_threads[i] = g_threads[--g_thread_count]; break; }
    pthread_mutex_unlock(&g_lock);
}

void shim_quarantine_after_fork_child(void) {
    g_inherited = g_count;
    // Only the forking thread lives on in the child.
    g_thread_count = 0;
    if (shim_self.exit_watched) g_threads[g_thread_count++] = &shim_self;
}

void shim_quarantine_lock(void) { pthread_mutex_lock(&g_lock); }

// glibc records the owner of every mutex, a normal one too.
int shim_quarantine_locked_here(void) { return __atomic_load_n(&g_lock.__data.__owner, __ATOMIC_RELAXED) == (int)shim_tid(); }
void shim_quarantine_unlock(void) { pthread_mutex_unlock(&g_lock); }

void shim_quarantine_usage(shim_quarantine_stats *out) {
    pthread_mutex_lock(&g_lock);
    out->count = g_count;
    out->bytes = g_bytes - g_hole_bytes;
    out->peak_count = g_peak_count;
    out->peak_bytes = g_peak_bytes;
    out->released = __atomic_load_n(&g_total_released, __ATOMIC_RELAXED);
    out->ring_bytes = g_ring_cap * sizeof(ring_entry) + g_big_cap * sizeof(uint32_t);
    pthread_mutex_unlock(&g_lock);
}

// A protected block (shim_protect.h): its partial pages at both ends,
// scribbled whole; the pages between are not readable.
static int protected_changed(const shim_block *b, size_t *offset, size_t *length) {
    uintptr_t lo, hi, user = (uintptr_t)shim_block_user(b);
    shim_protect_range(b, &lo, &hi);
    const unsigned char *p = (const unsigned char *)user;
    size_t head = lo - user, tail = hi - user, first = SIZE_MAX, last = 0;
    for (size_t i = 0; i < head; i++) if (p[i] != SHIM_SCRIBBLE_BYTE) { if (first == SIZE_MAX) first = i; last = i; }
    for (size_t i = tail; i < b->size; i++) if (p[i] != SHIM_SCRIBBLE_BYTE) { if (first == SIZE_MAX) first = i; last = i; }
    if (first == SIZE_MAX) return 0;
    *offset = first;
    *length = last - first + 1;
    return 1;
}

int shim_scribble_changed(const shim_block *b, size_t limit, size_t *offset, size_t *length) {
    if (__builtin_expect(b->free_tid & SHIM_FREE_PROTECTED, 0)) return protected_changed(b, offset, length);
    const unsigned char *p = shim_block_user(b);
    size_t n = b->size < limit ? b->size : limit;
    size_t first = shim_pattern_mismatch(p, SHIM_SCRIBBLE_BYTE, n);
    if (first == n) return 0;
    size_t last = first;
    for (size_t j = n; j > first; j--) if (p[j - 1] != SHIM_SCRIBBLE_BYTE) { last = j - 1; break; }
    *offset = first;
    *length = last - first + 1;
    return 1;
}

// The red zone of quarantined block `b` holds its pattern. Quarantined
// blocks are never guarded ones (those are not held).
static inline int zone_intact(const shim_block *b) {
    const unsigned char *p = (const unsigned char *)shim_block_user(b) + b->size;
    return shim_redzone_holds(p, shim_redzone_end(b) - (uintptr_t)p);
}

// Reads one byte of every line of `[from, to)` (64-byte lines), so that
// the misses of a whole batch are in flight at once. Loads, not prefetch
// instructions: on this project's AMD EPYC machine `prefetcht0` over the
// cold quarantine changed nothing (perf: the red zone's first compare still
// stalled, 53 % of release_batch), plain loads took release_batch from
// 27 % of the uniform workload's samples to 14 %.
static inline void touch_lines(const char *from, const char *to) {
    for (uintptr_t at = (uintptr_t)from & ~(uintptr_t)63; at < (uintptr_t)to; at += 64) {
        unsigned char v = *(volatile const unsigned char *)at;
        __asm__ volatile("" ::"r"(v));
    }
}

// Sampled verification (FAULTLINE_SCRIBBLE_SAMPLE = s > 0): a leaving
// block whose scribble has more than s + HEAD_CHUNKS + 1 chunks of 64 bytes
// is verified in its first HEAD_CHUNKS chunks (the first 256 bytes: an
// object's header fields, where a stale pointer's writes mostly land — a
// reference count, a list link, a flag), its last chunk and s chunks of
// the rest, evenly spaced from
// an offset that turns with every release, so one offset written again and
// again in a reused slot is met sooner or later. The pattern's misses, not
// its compares, are what the release pays (issue 29): fewer chunks read
// is fewer misses. A change found is measured whole for the report; the
// exit check reads every chunk.
static uint64_t g_sample_turn;

/// Chunks of 64 bytes from the scribble's start; the last one ends at `n`
/// (it may overlap the one before).
static inline size_t chunks_of(size_t n) { return (n + 63) / 64; }

/// Chunks at the scribble's start that are always verified.
#define HEAD_CHUNKS 4

/// 1 when a scribble of `n` bytes is sampled, not read whole.
static inline int sampled(size_t n, size_t s) { return s && chunks_of(n) > s + HEAD_CHUNKS + 1; }

/// Offset of the j-th sampled chunk (j < s) of a scribble of `n` bytes on
/// turn `turn`: one of the chunks between the head and the last.
static inline size_t sample_at(size_t n, size_t s, size_t j, uint64_t turn) {
    size_t middle = chunks_of(n) - HEAD_CHUNKS - 1;
    return 64 * (HEAD_CHUNKS + (size_t)((turn + j * middle / s) % middle));
}

/// The turn of the i-th block of a batch: spread, so neighbours differ.
static inline uint64_t turn_of(uint64_t base, int i) { return ((base + (uint64_t)i) * 0x9E3779B97F4A7C15ull) >> 40; }

/// 1 when the sampled chunks of the `n`-byte scribble at `p` hold it.
static inline int sample_holds(const unsigned char *p, size_t n, size_t s, uint64_t turn) {
    const uint64_t word = 0x0101010101010101ull * SHIM_SCRIBBLE_BYTE;
    int ok = shim_pattern_holds(p, word, 64 * HEAD_CHUNKS) & shim_pattern_holds(p + n - 64, word, 64);
    for (size_t j = 0; j < s; j++) ok &= shim_pattern_holds(p + sample_at(n, s, j, turn), word, 64);
    return ok;
}

// Reads every line release_batch reads of entry `e`'s block (sizes from
// the ring, not from the cold header): the header (state, checksum; the
// arena's free-list link goes there too), the scribbled bytes (to `limit`),
// and the red zone from the block's end to its slot's end. Arena blocks
// only, whose memory is never unmapped (a block pushed twice by a racing
// double free may be back in its class by now). The slot is `cost` bytes
// from the header or, with a live link, from 16 bytes before it (arena
// blocks have no alignment padding): loads stop 16 bytes short of
// header + cost, inside the slot either way. Other blocks get prefetches,
// which never fault (glibc may have trimmed a duplicate's memory).
// With a sampled scribble, only the chunks sample_holds reads.
static inline void touch_entry(const ring_entry *e, size_t limit, size_t s, uint64_t turn) {
    const char *h = (const char *)e->block;
    uint64_t cost = e->cost & COST_MASK;
    size_t size = entry_size(e->cost);
    if (size == 0 || !shim_arena_owns(h)) {
        __builtin_prefetch(h);
        if (cost > 128) __builtin_prefetch(h + cost - 64);
        return;
    }
    const char *user = h + SHIM_HEADER_SIZE;
    size_t n = size < limit ? size : limit;
    if (sampled(n, s)) {
        touch_lines(h, user + 64 * HEAD_CHUNKS);
        for (size_t j = 0; j < s; j++) touch_lines(user + sample_at(n, s, j, turn), user + sample_at(n, s, j, turn) + 64);
        touch_lines(user + n - 64, user + n);
    } else {
        touch_lines(h, user + n);
    }
    touch_lines(user + size, h + cost - SHIM_LINK_SIZE);
}

// 1 when the scribble of block `b` changed, its range in `off` and `len`:
// sampled (s > 0) when long, then measured whole once a change is seen.
static inline int scribble_changed_at_release(const shim_block *b, size_t limit, size_t s, uint64_t turn, size_t *off, size_t *len) {
    size_t n = b->size < limit ? b->size : limit;
    if (sampled(n, s) && !(b->free_tid & SHIM_FREE_PROTECTED) && sample_holds(shim_block_user(b), n, s, turn)) return 0;
    return shim_scribble_changed(b, limit, off, len);
}

// Verifies and frees blocks that left the quarantine (no lock held).
static void release_batch(const ring_entry *batch, int n) {
    // The blocks are cold after their stay: every line the checks read is
    // asked for first, so the misses overlap instead of coming one by one.
    size_t limit = shim_cfg.scribble_limit, s = (size_t)shim_cfg.scribble_sample;
    // A plain read and write (racing batches may share a turn: harmless).
    uint64_t base = __atomic_load_n(&g_sample_turn, __ATOMIC_RELAXED);
    __atomic_store_n(&g_sample_turn, base + (uint64_t)n, __ATOMIC_RELAXED);
    for (int i = 0; i < n; i++) touch_entry(&batch[i], limit, s, turn_of(base, i));
    for (int i = 0; i < n; i++) {
        shim_block *b = batch[i].block;
        // A block pushed twice by a racing double free is released once.
        if (__atomic_load_n(&b->magic, __ATOMIC_RELAXED) != shim_magic(b, SHIM_QUARANTINED)) continue;
        // A header overwritten while held (a write in front of a freed
        // block) is reported and never followed: the block is kept.
        if (__builtin_expect(!shim_block_sealed(b), 0)) {
            shim_report_heap_underflow(0, shim_block_user(b), SHIM_QUARANTINED, "header", 0, 0, 0, 0, "quarantine_release");
            __atomic_store_n(&b->magic, shim_magic(b, SHIM_RELEASED), __ATOMIC_RELEASE);
            continue;
        }
        if (__builtin_expect(!zone_intact(b), 0)) shim_redzone_report(b, SHIM_QUARANTINED, "quarantine_release");
        size_t off, len;
        if (limit && !(batch[i].cost & INHERITED) && scribble_changed_at_release(b, limit, s, turn_of(base, i), &off, &len))
            shim_report_write_after_free(b, off, len, "quarantine_release", 0);
        __atomic_store_n(&b->magic, shim_magic(b, SHIM_RELEASED), __ATOMIC_RELEASE);
        shim_real_free_block(b);
    }
}

// Takes the ring's oldest entry off it: a block to release, or a hole
// (block 0) that only gives its charge back.
static ring_entry pop_oldest(void) {
    ring_entry old = g_ring[g_head];
    g_head = g_head + 1 == g_ring_cap ? 0 : g_head + 1;
    g_count--;
    uint64_t cost = old.cost & COST_MASK;
    g_bytes -= cost;
    if (g_inherited) { g_inherited--; old.cost |= INHERITED; }
    if (!old.block) {
        g_hole_bytes -= cost;
    } else if (is_big(cost)) {
        // The oldest held big block is the oldest on the big list.
        g_big_head = g_big_head + 1 == g_big_cap ? 0 : g_big_head + 1;
        g_big_count--;
        g_big_bytes -= cost;
    }
    return old;
}

// Takes the oldest big block out of turn; its ring slot becomes a hole.
static ring_entry pop_oldest_big(void) {
    size_t at = g_big[g_big_head];
    g_big_head = g_big_head + 1 == g_big_cap ? 0 : g_big_head + 1;
    g_big_count--;
    ring_entry e = g_ring[at];
    uint64_t cost = e.cost & COST_MASK;
    g_big_bytes -= cost;
    g_hole_bytes += cost;
    g_ring[at].block = 0;
    // Held before a fork: within the inherited entries from the head.
    if ((at + g_ring_cap - g_head) % g_ring_cap < g_inherited) e.cost |= INHERITED;
    return e;
}

// Appends `n` blocks to the ring, first releasing the oldest until each
// fits under both limits, so what the quarantine holds never exceeds its
// budget (appending first and releasing after let one big block overshoot
// it by its size, which showed in peak RSS); then the oldest big blocks
// while they hold more than their share. Only what leaves is released: it
// is reused at once (the arena's thread cache), still in cache from the
// check; leaving down to a low-water mark released megabytes at a time,
// which were cold again before the program reused them.
static void push(shim_block *const *blocks, int n) {
    ring_entry batch[RELEASE_BATCH];
    int k = 0, next = 0;
    pthread_mutex_lock(&g_lock);
    while (next < n || g_big_bytes > g_big_max) {
        if (k == RELEASE_BATCH) {
            // The batch is full: release it, then go on.
            __atomic_fetch_add(&g_total_released, (uint64_t)k, __ATOMIC_RELAXED);
            pthread_mutex_unlock(&g_lock);
            release_batch(batch, k);
            k = 0;
            pthread_mutex_lock(&g_lock);
            continue;
        }
        if (g_big_bytes > g_big_max) {
            batch[k++] = pop_oldest_big();
            continue;
        }
        uint64_t cost = shim_block_cost(blocks[next]);
        // Bigger than the whole budget: it cannot be held, it leaves at once.
        if (cost > g_max_bytes) {
            batch[k++] = (ring_entry){blocks[next], entry_cost(blocks[next], cost)};
            next++;
            continue;
        }
        if (g_count > 0 && (g_bytes + cost > g_max_bytes || g_count + 1 > g_max_count)) {
            ring_entry old = pop_oldest();
            if (old.block) batch[k++] = old;
            continue;
        }
        // The ring holds a thread batch more than the count limit: room.
        if (is_big(cost)) {
            size_t at = g_big_head + g_big_count;
            g_big[at >= g_big_cap ? at - g_big_cap : at] = (uint32_t)g_tail;
            g_big_count++;
            g_big_bytes += cost;
        }
        g_ring[g_tail] = (ring_entry){blocks[next], entry_cost(blocks[next], cost)};
        g_tail = g_tail + 1 == g_ring_cap ? 0 : g_tail + 1;
        g_count++;
        g_bytes += cost;
        if (g_bytes - g_hole_bytes > g_peak_bytes) g_peak_bytes = g_bytes - g_hole_bytes;
        if (g_count > g_peak_count) g_peak_count = g_count;
        next++;
    }
    __atomic_fetch_add(&g_total_released, (uint64_t)k, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&g_lock);
    if (k) release_batch(batch, k);
}

void shim_quarantine_put(shim_block *b) {
    // Before the constructor (no ring yet) nothing is held and no lock is
    // taken: a sanitizer starting up first may not have its pthread
    // interceptors ready.
    if (g_max_count == 0 || g_max_bytes == 0 || !__atomic_load_n(&g_ring, __ATOMIC_ACQUIRE)) {
        // Nothing is held: the block goes back at once. Its header and red
        // zone were verified by the free that put it here a moment ago, and
        // its scribble could not have changed since, so release_batch's
        // checks are skipped (they took a fifth of the time of a free with
        // every check off). The count is a plain increment, not an atomic
        // one (statistics only: threads freeing at once may lose counts).
        // A block pushed twice by a racing double free is released once.
        if (__atomic_load_n(&b->magic, __ATOMIC_RELAXED) != shim_magic(b, SHIM_QUARANTINED)) return;
        __atomic_store_n(&g_total_released, __atomic_load_n(&g_total_released, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
        __atomic_store_n(&b->magic, shim_magic(b, SHIM_RELEASED), __ATOMIC_RELEASE);
        shim_real_free_block(b);
        return;
    }
    // Small quarantines keep exact FIFO order; otherwise each thread hands
    // its frees over SHIM_THREAD_BATCH at a time (one lock per batch).
    // Large blocks go straight in so what a thread holds back stays small.
    uint64_t cost = shim_block_cost(b);
    if (g_max_count < 16 * SHIM_THREAD_BATCH || shim_self.batch_off || cost > SHIM_THREAD_BATCH_BYTES / 4) {
        push(&b, 1);
        return;
    }
    if (__builtin_expect(!shim_self.exit_watched, 0)) shim_init_watch_thread();
    // The entry before the count (a release store): the exit check reads
    // other threads' batches up to their count.
    int k = shim_self.pending_count;
    shim_self.pending[k] = b;
    __atomic_store_n(&shim_self.pending_count, k + 1, __ATOMIC_RELEASE);
    shim_self.pending_bytes += cost;
    if (shim_self.pending_count == SHIM_THREAD_BATCH || shim_self.pending_bytes >= SHIM_THREAD_BATCH_BYTES)
        shim_quarantine_flush_thread();
}

void shim_quarantine_flush_thread(void) {
    int n = shim_self.pending_count;
    if (n == 0) return;
    shim_block *blocks[SHIM_THREAD_BATCH];
    for (int i = 0; i < n; i++) blocks[i] = shim_self.pending[i];
    shim_self.pending_count = 0;
    shim_self.pending_bytes = 0;
    push(blocks, n);
}

size_t shim_quarantine_capacity(void) { return g_ring_cap + (size_t)MAX_THREADS * SHIM_THREAD_BATCH; }

// Marks a changed block released, so that the release that would have
// given it back (the ring's, or its thread's batch's) skips it: the exit
// check reads it after the lock is let go. It is never given back: the
// process is exiting.
static int take_if_changed(shim_block *b) {
    size_t off, len;
    if (__atomic_load_n(&b->magic, __ATOMIC_RELAXED) != shim_magic(b, SHIM_QUARANTINED)) return 0;
    if (!shim_scribble_changed(b, shim_cfg.scribble_limit, &off, &len)) return 0;
    __atomic_store_n(&b->magic, shim_magic(b, SHIM_RELEASED), __ATOMIC_RELEASE);
    return 1;
}

size_t shim_quarantine_take_changed(shim_block **out, size_t cap) {
    if (!shim_cfg.scribble_limit || !__atomic_load_n(&g_ring, __ATOMIC_ACQUIRE)) return 0;
    size_t n = 0;
    pthread_mutex_lock(&g_lock);
    // One pass over the ring, oldest first, leaving every entry in place
    // (the blocks held before a fork are the parent's to check).
    size_t i = g_head;
    for (size_t k = 0; k < g_count && n < cap; k++) {
        if (k >= g_inherited && g_ring[i].block && take_if_changed(g_ring[i].block)) out[n++] = g_ring[i].block;
        i = i + 1 == g_ring_cap ? 0 : i + 1;
    }
    // Then the frees other threads collected but did not hand over yet
    // (g_lock held: none of them can reach the ring meanwhile).
    for (int t = 0; t < g_thread_count; t++) {
        shim_thread *th = g_threads[t];
        if (th == &shim_self) continue;
        int m = __atomic_load_n(&th->pending_count, __ATOMIC_ACQUIRE);
        for (int j = 0; j < m && j < SHIM_THREAD_BATCH && n < cap; j++)
            if (take_if_changed(th->pending[j])) out[n++] = th->pending[j];
    }
    pthread_mutex_unlock(&g_lock);
    return n;
}

int shim_quarantine_scan(int (*visit)(shim_block *b, void *ctx), void *ctx, uint64_t timeout_ns) {
    if (!g_ring) return 0;
    uint64_t deadline = fl_monotonic_ns() + timeout_ns;
    // trylock: the faulting thread may hold the lock itself.
    while (pthread_mutex_trylock(&g_lock) != 0) {
        if (fl_monotonic_ns() > deadline) return 0;
        fl_sleep_ns(100000);
    }
    size_t i = g_tail;
    for (size_t k = 0; k < g_count; k++) {
        i = i == 0 ? g_ring_cap - 1 : i - 1;
        if (g_ring[i].block && visit(g_ring[i].block, ctx)) break;
    }
    pthread_mutex_unlock(&g_lock);
    return 1;
}
