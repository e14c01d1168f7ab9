#include "shim_depot.h"

#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

// Entry layout in the arena; ids are offsets in 8-byte units (0 = none).
typedef struct depot_entry {
    uint32_t next;   ///< next id in the bucket's chain
    uint32_t hash;
    uint32_t count;
    uint32_t pad;
    _Atomic uint64_t live_bytes;   ///< bytes of live blocks allocated here (leak tracking)
    _Atomic uint64_t live_blocks;  ///< live blocks allocated here
    uintptr_t pcs[];
} depot_entry;

#define DEPOT_BUCKET_BITS 18

static char *g_arena;
static size_t g_cap;
static _Atomic size_t g_cursor;
static _Atomic uint32_t *g_buckets;
static _Atomic uint64_t g_dropped;

int shim_depot_init(size_t bytes) {
    if (g_arena) return 0;
    // Ids are 32-bit offsets in 8-byte units: at most 32 GiB.
    if (bytes > (size_t)UINT32_MAX * 8) bytes = (size_t)UINT32_MAX * 8;
    void *a = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *b = mmap(0, sizeof(uint32_t) << DEPOT_BUCKET_BITS, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (a == MAP_FAILED || b == MAP_FAILED) {
        if (a != MAP_FAILED) munmap(a, bytes);
        if (b != MAP_FAILED) munmap(b, sizeof(uint32_t) << DEPOT_BUCKET_BITS);
        return -1;
    }
    g_buckets = b;
    g_cap = bytes;
    atomic_store(&g_cursor, 8);  // offset 0 would be id 0
    atomic_store_explicit((_Atomic(char *) *)&g_arena, (char *)a, memory_order_release);
    return 0;
}

static inline depot_entry *entry(uint32_t id) { return (depot_entry *)(g_arena + (size_t)id * 8); }

static inline uint32_t hash_stack(const uintptr_t *pcs, int n) {
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)n;
    for (int i = 0; i < n; i++) {
        h ^= pcs[i];
        h *= 0x100000001b3ull;
        h ^= h >> 29;
    }
    return (uint32_t)(h ^ (h >> 32));
}

uint32_t shim_depot_put(const uintptr_t *pcs, int n) {
    if (n <= 0 || !g_arena) return 0;
    uint32_t h = hash_stack(pcs, n);
    _Atomic uint32_t *bucket = &g_buckets[h & ((1u << DEPOT_BUCKET_BITS) - 1)];
    uint32_t head = atomic_load_explicit(bucket, memory_order_acquire);
    for (uint32_t id = head; id; id = entry(id)->next) {
        depot_entry *e = entry(id);
        if (e->hash == h && e->count == (uint32_t)n && memcmp(e->pcs, pcs, (size_t)n * sizeof *pcs) == 0) return id;
    }
    size_t size = sizeof(depot_entry) + (size_t)n * sizeof(uintptr_t);
    size_t off = atomic_fetch_add_explicit(&g_cursor, size, memory_order_relaxed);
    if (off + size > g_cap) {
        atomic_fetch_add_explicit(&g_dropped, 1, memory_order_relaxed);
        return 0;
    }
    uint32_t id = (uint32_t)(off / 8);
    depot_entry *e = entry(id);
    e->hash = h;
    memcpy(e->pcs, pcs, (size_t)n * sizeof *pcs);
    // count last: a walk (shim_depot_next) stops at an entry without one.
    __atomic_store_n(&e->count, (uint32_t)n, __ATOMIC_RELEASE);
    // Publish; a racing insert of the same stack may leave a duplicate,
    // which only costs a few bytes.
    do { e->next = head; } while (!atomic_compare_exchange_weak_explicit(bucket, &head, id, memory_order_release, memory_order_acquire));
    return id;
}

int shim_depot_get(uint32_t id, const uintptr_t **pcs) {
    if (id == 0 || !g_arena) return 0;
    size_t off = (size_t)id * 8;
    size_t used = atomic_load_explicit(&g_cursor, memory_order_acquire);
    if (off + sizeof(depot_entry) > used || off + sizeof(depot_entry) > g_cap) return 0;
    depot_entry *e = entry(id);
    if (e->count == 0 || e->count > 256 || off + sizeof(depot_entry) + e->count * sizeof(uintptr_t) > g_cap) return 0;
    *pcs = e->pcs;
    return (int)e->count;
}

size_t shim_depot_used(void) {
    size_t c = atomic_load(&g_cursor);
    return c > g_cap ? g_cap : c;
}

uint64_t shim_depot_dropped(void) { return atomic_load(&g_dropped); }

// Live bytes and blocks of allocations without a recorded stack (id 0).
static _Atomic uint64_t g_unknown_bytes, g_unknown_blocks;

void shim_depot_account(uint32_t id, int64_t bytes, int64_t blocks) {
    _Atomic uint64_t *b = &g_unknown_bytes, *k = &g_unknown_blocks;
    if (id && g_arena) {
        depot_entry *e = entry(id);
        b = &e->live_bytes;
        k = &e->live_blocks;
    }
    atomic_fetch_add_explicit(b, (uint64_t)bytes, memory_order_relaxed);
    atomic_fetch_add_explicit(k, (uint64_t)blocks, memory_order_relaxed);
}

void shim_depot_live_clear(void) {
    atomic_store_explicit(&g_unknown_bytes, 0, memory_order_relaxed);
    atomic_store_explicit(&g_unknown_blocks, 0, memory_order_relaxed);
    for (uint32_t id = shim_depot_next(0); id; id = shim_depot_next(id)) {
        depot_entry *e = entry(id);
        atomic_store_explicit(&e->live_bytes, 0, memory_order_relaxed);
        atomic_store_explicit(&e->live_blocks, 0, memory_order_relaxed);
    }
}

void shim_depot_live(uint32_t id, uint64_t *bytes, uint64_t *blocks) {
    if (id == 0 || !g_arena) {
        *bytes = atomic_load_explicit(&g_unknown_bytes, memory_order_relaxed);
        *blocks = atomic_load_explicit(&g_unknown_blocks, memory_order_relaxed);
        return;
    }
    depot_entry *e = entry(id);
    *bytes = atomic_load_explicit(&e->live_bytes, memory_order_relaxed);
    *blocks = atomic_load_explicit(&e->live_blocks, memory_order_relaxed);
}

uint32_t shim_depot_next(uint32_t id) {
    if (!g_arena) return 0;
    size_t used = atomic_load_explicit(&g_cursor, memory_order_acquire);
    if (used > g_cap) used = g_cap;
    size_t off;
    if (id == 0) {
        off = 8;
    } else {
        depot_entry *e = entry(id);
        uint32_t n = __atomic_load_n(&e->count, __ATOMIC_ACQUIRE);
        if (n == 0 || n > 256) return 0;
        off = (size_t)id * 8 + sizeof(depot_entry) + (size_t)n * sizeof(uintptr_t);
    }
    if (off + sizeof(depot_entry) > used) return 0;
    // An entry whose space is reserved but not written yet ends the walk.
    if (__atomic_load_n(&entry((uint32_t)(off / 8))->count, __ATOMIC_ACQUIRE) == 0) return 0;
    return (uint32_t)(off / 8);
}

void shim_depot_range(uintptr_t *lo, uintptr_t *hi) {
    *lo = (uintptr_t)g_arena;
    *hi = (uintptr_t)g_arena + (g_arena ? g_cap : 0);
}

uint32_t shim_depot_id_limit(void) { return (uint32_t)(shim_depot_used() / 8); }
