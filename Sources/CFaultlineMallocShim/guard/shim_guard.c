#include "shim_guard.h"
#include "page_size.h"
#include "shim_config.h"
#include "shim_live.h"
#include "shim_redzone.h"
#include "shim_report.h"
#include "shim_spin.h"
#include "shim_thread.h"
#include "sigsafe.h"

#include <errno.h>
#include <stdatomic.h>
#include <sys/mman.h>

uintptr_t shim_guard_lo, shim_guard_hi;

/// Address space for FAULTLINE_GUARD=all (never reused: freed blocks stay
/// PROT_NONE); when it is used up, blocks take the plain path.
#define ALL_RANGE (16ull << 30)
/// Data pages of a sample slot (blocks up to 16 KiB less the header).
#define SLOT_DATA_PAGES 4u
/// Pages the describer looks back for the run holding an address.
#define FIND_PAGES_ALL 65536u
/// PROT_NONE bytes at the range's start that no block ever gets: the guard
/// table is mapped right below the range, and a write 1 MiB in front of an
/// early block (mimalloc-bench's one_mbyte_underflow) went silently into it.
/// Now it faults here, and the describer names the block (shim_guard_moat).
#define MOAT (64ull << 20)

/// What the table keeps per block, at the index of its user pointer's page.
/// `user` is stored as an offset into the range plus one, so the table
/// holds no pointer the leak scan would take for a reference.
typedef struct entry {
    _Atomic uint64_t user_off;  ///< user - lo + 1; 0: none
    _Atomic uint32_t state;     ///< SHIM_LIVE, SHIM_QUARANTINED
    uint32_t pages;             ///< data pages of its run
    uint64_t data_off;          ///< first data page - lo
    shim_block copy;            ///< the header, as at allocation and at free
} entry;

static int g_mode, g_left, g_align;
static size_t g_page;
static entry *g_table;
static size_t g_table_len;
static _Atomic uintptr_t g_bump;  // mode all: next run
// Mode sample: free slots, oldest freed first.
static uint32_t *g_free_slots;
static uint32_t g_slots, g_free_head, g_free_count;
static _Atomic int g_slot_lock;
static uint32_t g_sample_every;
static uintptr_t g_base;  // first run: the range's start plus the moat

static void *reserve(size_t n, int prot) {
    void *p = mmap(0, n, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? 0 : p;
}

int shim_guard_init(int mode, size_t slots, int left) {
    if (mode == SHIM_GUARD_OFF) return 0;
    g_page = fl_page_size();
    size_t range = MOAT + (mode == SHIM_GUARD_ALL ? ALL_RANGE : slots * (SLOT_DATA_PAGES + 1) * g_page);
    void *r = reserve(range, PROT_NONE);
    if (!r) return -1;
    g_table_len = range / g_page;
    g_table = reserve(g_table_len * sizeof(entry), PROT_READ | PROT_WRITE);
    if (mode == SHIM_GUARD_SAMPLE) g_free_slots = reserve(slots * sizeof(uint32_t), PROT_READ | PROT_WRITE);
    if (!g_table || (mode == SHIM_GUARD_SAMPLE && !g_free_slots)) { munmap(r, range); return -1; }
    for (uint32_t i = 0; mode == SHIM_GUARD_SAMPLE && i < slots; i++) g_free_slots[i] = i;
    g_slots = g_free_count = (uint32_t)slots;
    g_mode = mode;
    g_left = left;
    g_align = shim_cfg.guard_align;
    g_sample_every = shim_cfg.guard_sample ? (uint32_t)shim_cfg.guard_sample : 1;
    g_base = (uintptr_t)r + MOAT;
    atomic_store(&g_bump, g_base);
    shim_guard_hi = (uintptr_t)r + range;
    __atomic_store_n(&shim_guard_lo, (uintptr_t)r, __ATOMIC_RELEASE);
    return 0;
}

// xorshift32, per thread, seeded from its id and the clock.
static uint32_t next_random(void) {
    uint32_t x = shim_self.guard_rng;
    if (!x) x = (shim_tid() * 2654435761u) ^ (uint32_t)fl_monotonic_ns() ^ 1u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    shim_self.guard_rng = x;
    return x;
}

int shim_guard_wanted(void) {
    if (g_mode == SHIM_GUARD_ALL) return 1;
    if (g_mode != SHIM_GUARD_SAMPLE) return 0;
    if (__builtin_expect(shim_self.guard_countdown > 1, 1)) { shim_self.guard_countdown--; return 0; }
    int first = shim_self.guard_countdown == 0;
    // Uniform in [1, 2N - 1]: one allocation in N on average, at no fixed step.
    shim_self.guard_countdown = 1 + next_random() % (2 * g_sample_every - 1);
    return !first;
}

static inline entry *entry_at(uintptr_t a) { return &g_table[(a - shim_guard_lo) / g_page]; }

uintptr_t shim_guard_data_end(const shim_block *b) {
    uintptr_t end = (uintptr_t)shim_block_user(b) + b->size;
    if (g_left) return end + shim_redzone_span(b->size);
    return (end + g_page - 1) & ~(uintptr_t)(g_page - 1);
}

// What is kept per slot, for pools of up to KEPT_SLOTS slots: whether its
// pages are coloured (below; five mappings a slot is 5120 at most, a small
// part of the kernel's 65530 a process may have), and the bytes of its
// pages [front_lo, front_hi) (offsets into the range) that hold the front
// pattern, as its last block's free found them (0, 0 while live or unknown).
#define KEPT_SLOTS 1024u
typedef struct slot_state {
    uint32_t front_lo, front_hi;
    uint8_t coloured;
} slot_state;
static slot_state g_slot_state[KEPT_SLOTS];

static inline slot_state *kept(uint32_t slot) { return g_mode == SHIM_GUARD_SAMPLE && slot < g_slots && g_slots <= KEPT_SLOTS ? &g_slot_state[slot] : 0; }

// Gives every other page of the pool MADV_NOHUGEPAGE (those at an odd
// index from its start, and the moat in front of it), so that no two
// neighbouring pages share their flags and each stays a mapping of its
// own: mprotect then changes whole mappings in place instead of splitting
// the range's mapping at every reuse and merging it back at every free
// (two thirds of its cost). The flag changes nothing else: no mapping of
// 4 KiB gets a huge page. Done once per slot, at its first use (2 or 3
// calls); a refusal leaves the slot as it was (mprotect then splits and
// merges, as before).
static void colour_slot(uint32_t slot, uintptr_t run) {
    slot_state *st = kept(slot);
    if (!st || st->coloured) return;
    st->coloured = 1;
    int saved = errno;
    if (slot == 0) madvise((void *)shim_guard_lo, g_base - shim_guard_lo, MADV_NOHUGEPAGE);
    size_t first = (run - g_base) / g_page;
    for (size_t j = (first & 1) ? 0 : 1; j <= SLOT_DATA_PAGES; j += 2) madvise((void *)(run + j * g_page), g_page, MADV_NOHUGEPAGE);
    errno = saved;
}

// A run of `pages` data pages and its guard page; 0 when none is left.
static uintptr_t take_run(size_t pages, uint32_t *slot) {
    if (g_mode == SHIM_GUARD_ALL) {
        uintptr_t run = atomic_fetch_add(&g_bump, (pages + 1) * g_page);
        return run + (pages + 1) * g_page <= shim_guard_hi ? run : 0;
    }
    if (pages > SLOT_DATA_PAGES) return 0;
    shim_spin_lock(&g_slot_lock);
    if (!g_free_count) { shim_spin_unlock(&g_slot_lock); return 0; }
    *slot = g_free_slots[g_free_head];
    g_free_head = (g_free_head + 1) % g_slots;
    g_free_count--;
    shim_spin_unlock(&g_slot_lock);
    uintptr_t run = g_base + (uintptr_t)*slot * (SLOT_DATA_PAGES + 1) * g_page;
    colour_slot(*slot, run);
    return run;
}

static void front_span(const shim_block *b, uintptr_t *lo, uintptr_t *hi);

static inline uint32_t slot_of(uintptr_t run) { return (uint32_t)((run - g_base) / ((SLOT_DATA_PAGES + 1) * g_page)); }

static void give_slot(uintptr_t run) {
    if (g_mode != SHIM_GUARD_SAMPLE) return;
    uint32_t slot = slot_of(run);
    shim_spin_lock(&g_slot_lock);
    g_free_slots[(g_free_head + g_free_count) % g_slots] = slot;
    g_free_count++;
    shim_spin_unlock(&g_slot_lock);
}

// Sample mode: a slot's front pattern from `data` that its last block's
// free left whole, so the next block in the same pages writes only the
// rest of its own (in the mix workload a 4 KiB memset of cold lines a
// turn). Returns the end of the known part, at most `front_end`, or
// `data`; the slot's record is dropped (its block is live from here on).
static uintptr_t front_known(uint32_t slot, uintptr_t data, uintptr_t front_end) {
    slot_state *st = kept(slot);
    if (!st || !st->front_hi) return data;
    uintptr_t lo = shim_guard_lo + st->front_lo, hi = shim_guard_lo + st->front_hi;
    st->front_lo = st->front_hi = 0;
    if (lo != data) return data;
    return hi < front_end ? hi : front_end;
}

// A sample slot's pages keep the bytes of the block that had them last
// (shim_guard_free drops no page): what the pattern, header and red zone
// do not write is cleared here, so calloc reads zeros and the leak scan,
// which reads a live slot's pages outside its block as a root, finds none
// of the old block's pointers (in the link, or past the red zone on the
// left side). The block's own bytes stay as malloc leaves them.
static void clear_recycled(uintptr_t data, size_t pages, const shim_block *b, int linked, int zero) {
    if (linked) __builtin_memset(shim_block_link(b), 0, SHIM_LINK_SIZE);
    if (zero) __builtin_memset(shim_block_user(b), 0, b->size);
    uintptr_t end = shim_guard_data_end(b), top = data + pages * g_page;
    if (end < top) __builtin_memset((void *)end, 0, top - end);
}

void *shim_guard_alloc(size_t size, size_t align, int zero, unsigned kind, uint32_t stack, size_t fill_from, int linked) {
    if (!g_mode) return 0;
    size_t front = SHIM_HEADER_SIZE + (linked ? SHIM_LINK_SIZE : 0);
    // malloc's alignment (16) is kept by default even for small sizes:
    // aligned only as their size needed (GWP-ASan's exact right alignment),
    // python3's objects with a variable-length tail lost their 8-byte
    // alignment ("co_code is malformed"). FAULTLINE_GUARD_ALIGN lowers it
    // for programs that do not care (Electric Fence's EF_ALIGNMENT): then
    // a read 1 byte past a 13-byte block faults too.
    size_t min_align = g_align && !g_left ? (size_t)g_align : 16;
    if (align < min_align) align = min_align;
    if (size > ALL_RANGE / 2 || align > g_page) return 0;
    size_t need = front + size + align - 1 + (g_left ? shim_redzone_span(size) : 0);
    size_t pages = (need + g_page - 1) / g_page;
    uint32_t slot = 0;
    uintptr_t run = take_run(pages, &slot);
    if (!run) return 0;
    // Right: [data][guard], the block ending at the guard (as its alignment
    // allows); left: [guard][data], the header first, then the block.
    uintptr_t data = g_left ? run + g_page : run;
    if (g_mode == SHIM_GUARD_SAMPLE) data = g_left ? run + g_page : run + (SLOT_DATA_PAGES - pages) * g_page;
    int saved = errno;
    if (mprotect((void *)data, pages * g_page, PROT_READ | PROT_WRITE) != 0) {
        errno = saved;
        give_slot(run);
        return 0;
    }
    errno = saved;
    uintptr_t user = g_left ? (data + front + align - 1) & ~(uintptr_t)(align - 1)
                            : (data + pages * g_page - size) & ~(uintptr_t)(align - 1);
    shim_block *b = shim_block_from_user((void *)user);
    shim_block_begin(b, size, kind, stack, shim_tid(), data);
    shim_redzone_fill(b);
    // The data pages' bytes in front of the live link (or header): a
    // pattern, checked with the red zone (an underflow past the header).
    uintptr_t front_end = (uintptr_t)b - (linked ? SHIM_LINK_SIZE : 0);
    uintptr_t from = front_known(slot, data, front_end);
    __builtin_memset((void *)from, SHIM_REDZONE_BYTE, front_end - from);
    if (g_mode == SHIM_GUARD_SAMPLE) clear_recycled(data, pages, b, linked, zero);
    // Mode all's pages are fresh and read as zeros: calloc needs nothing more.
    if (!zero) {
        size_t end = size < shim_cfg.fill_limit ? size : shim_cfg.fill_limit;
        if (end > fill_from) __builtin_memset((char *)user + fill_from, SHIM_FILL_BYTE, end - fill_from);
    }
    uint32_t live = shim_magic(b, SHIM_LIVE);
    if (linked && shim_self.depth > 0) shim_live_leave_out(b);
    else if (linked) shim_live_insert(b, live);
    entry *e = entry_at(user);
    atomic_store_explicit(&e->user_off, 0, memory_order_release);
    e->pages = (uint32_t)pages;
    e->data_off = data - shim_guard_lo;
    e->copy = *b;
    atomic_store_explicit(&e->state, SHIM_LIVE, memory_order_relaxed);
    atomic_store_explicit(&e->user_off, user - shim_guard_lo + 1, memory_order_release);
    __atomic_store_n(&b->magic, live, __ATOMIC_RELEASE);
    return (void *)user;
}

uint32_t shim_guard_state(const void *p) {
    uintptr_t a = (uintptr_t)p;
    if (!g_table) return 0;
    entry *e = entry_at(a);
    if (atomic_load_explicit(&e->user_off, memory_order_acquire) != a - shim_guard_lo + 1) return 0;
    return atomic_load_explicit(&e->state, memory_order_relaxed);
}

void shim_guard_free(shim_block *b) {
    uintptr_t user = (uintptr_t)shim_block_user(b);
    entry *e = entry_at(user);
    e->copy = *b;
    atomic_store_explicit(&e->state, SHIM_QUARANTINED, memory_order_release);
    uintptr_t data = shim_guard_lo + e->data_off;
    size_t len = (size_t)e->pages * g_page;
    uintptr_t front_lo, front_hi;  // read while the header still can be
    front_span(b, &front_lo, &front_hi);
    int saved = errno;
    // Inaccessible: a dangling access faults. Mode all never reuses the
    // pages, so gives them back; a sample slot keeps them for its next
    // block (one mprotect each way, no madvise and no page faults at reuse).
    mprotect((void *)data, len, PROT_NONE);
    if (g_mode == SHIM_GUARD_ALL) madvise((void *)data, len, MADV_DONTNEED);
    errno = saved;
    if (g_mode == SHIM_GUARD_SAMPLE) {
        uintptr_t run = g_left ? data - g_page : data - (SLOT_DATA_PAGES - e->pages) * g_page;
        slot_state *st = kept(slot_of(run));
        // Its front holds the pattern: release and realloc found it whole,
        // or reported it and wrote it back, before freeing the block.
        if (st) {
            st->front_lo = (uint32_t)(front_lo - shim_guard_lo);
            st->front_hi = (uint32_t)(front_hi - shim_guard_lo);
        }
        give_slot(run);
    }
}

int shim_guard_copy(const void *p, shim_block *out) {
    uintptr_t a = (uintptr_t)p;
    if (!shim_guard_owns(p) || !g_table) return 0;
    entry *e = entry_at(a);
    if (atomic_load_explicit(&e->user_off, memory_order_acquire) != a - shim_guard_lo + 1) return 0;
    *out = e->copy;
    return 1;
}

int shim_guard_find(uintptr_t addr, shim_found *out) {
    if (!shim_guard_owns((void *)addr) || !g_table) return 0;
    size_t idx = (addr - shim_guard_lo) / g_page;
    size_t limit = g_mode == SHIM_GUARD_ALL ? FIND_PAGES_ALL : SLOT_DATA_PAGES + 2;
    // The block's user page is at most one page above its run's first data
    // page; the address may be in its guard page, or before it in its run.
    for (size_t k = 0; k <= limit + 1 && k <= idx + 1; k++) {
        size_t i = idx + 1 - k;
        if (i >= g_table_len) continue;
        entry *e = &g_table[i];
        uint64_t off = atomic_load_explicit(&e->user_off, memory_order_acquire);
        if (!off) continue;
        uintptr_t data = shim_guard_lo + e->data_off, end = data + (size_t)e->pages * g_page;
        uintptr_t lo = g_left ? data - g_page : data, hi = g_left ? end : end + g_page;
        if (addr < lo || addr >= hi) continue;
        uintptr_t user = shim_guard_lo + off - 1;
        out->header = shim_block_from_user((void *)user);
        out->copy = e->copy;
        out->state = atomic_load_explicit(&e->state, memory_order_relaxed);
        out->offset = addr - user;
        return 1;
    }
    return 0;
}

// The bytes in front of a guarded block's live link (or header) in its
// data pages: [lo, hi). Without a link the 16 bytes in front of the header
// are filled too but not checked (a block does not say whether it has one).
static void front_span(const shim_block *b, uintptr_t *lo, uintptr_t *hi) {
    *lo = (uintptr_t)b - b->align_off;
    *hi = (uintptr_t)b - (b->align_off < SHIM_LINK_SIZE ? b->align_off : SHIM_LINK_SIZE);
}

int shim_guard_front_intact(const shim_block *b) {
    uintptr_t lo, hi;
    front_span(b, &lo, &hi);
    // Up to a page, cold at free: 16 bytes a step, no branch between loads.
    if (hi - lo >= 16) return shim_pattern_holds((const void *)lo, SHIM_REDZONE_WORD, hi - lo);
    const uint64_t *w = (const uint64_t *)lo;  // 16-aligned: data is a page, b is 16-aligned
    for (; (uintptr_t)(w + 1) <= hi; w++)
        if (*w != SHIM_REDZONE_WORD) return 0;
    return 1;
}

int shim_guard_front_report(const shim_block *b, uint32_t state, const char *detected) {
    uintptr_t lo, hi;
    front_span(b, &lo, &hi);
    const unsigned char *p = (const unsigned char *)lo;
    size_t n = hi - lo, i = 0, j = n;
    while (i < n && p[i] == SHIM_REDZONE_BYTE) i++;
    if (i == n) return 0;
    while (j > i && p[j - 1] == SHIM_REDZONE_BYTE) j--;
    __builtin_memset((void *)lo, SHIM_REDZONE_BYTE, n);  // reported once
    shim_block copy = *b;
    const void *user = shim_block_user(b);
    shim_report_heap_underflow(&copy, user, state, "front_slack", (uintptr_t)user - (lo + i), j - i, 0, 0, detected);
    return 1;
}

int shim_guard_moat(uintptr_t addr) { return g_mode && addr >= shim_guard_lo && addr < g_base; }
