#include "stack_store.h"
#include "thread_capture.h"

#include <stdatomic.h>
#include <sys/mman.h>

// 4 Mi words (32 MiB reserved, touched as used) and 256 Ki slots: tens of
// thousands of distinct stacks, far more than a program opens fds from.
#define ARENA_WORDS (4u << 20)
#define TABLE_SLOTS (1u << 18)

// A stack in the arena: [hash, n, pcs...]; its id is its word offset + 1.
static uintptr_t *g_arena;
static _Atomic uint32_t *g_table;
static _Atomic uint32_t g_used;
static _Atomic uint64_t g_dropped;

int fl_stack_store_init(void) {
    if (g_arena) return 0;
    void *a = mmap(0, (size_t)ARENA_WORDS * sizeof(uintptr_t), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *t = mmap(0, (size_t)TABLE_SLOTS * sizeof(uint32_t), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (a == MAP_FAILED || t == MAP_FAILED) {
        if (a != MAP_FAILED) munmap(a, (size_t)ARENA_WORDS * sizeof(uintptr_t));
        if (t != MAP_FAILED) munmap(t, (size_t)TABLE_SLOTS * sizeof(uint32_t));
        return -1;
    }
    g_table = t;
    g_arena = a;
    return 0;
}

static uintptr_t hash_of(const uintptr_t *pcs, int n) {
    uint64_t h = 1469598103934665603ull ^ (uint64_t)n;
    for (int i = 0; i < n; i++) h = (h ^ pcs[i]) * 1099511628211ull;
    return (uintptr_t)(h | 1);
}

static int same(uint32_t id, uintptr_t h, const uintptr_t *pcs, int n) {
    const uintptr_t *s = g_arena + id - 1;
    if (s[0] != h || s[1] != (uintptr_t)n) return 0;
    for (int i = 0; i < n; i++)
        if (s[2 + i] != pcs[i]) return 0;
    return 1;
}

uint32_t fl_stack_store_put(const uintptr_t *pcs, int n) {
    if (!g_arena || n <= 0) return 0;
    if (n > FL_STACK_STORE_FRAMES) n = FL_STACK_STORE_FRAMES;
    uintptr_t h = hash_of(pcs, n);
    uint32_t mine = 0;  // written but not yet published
    for (uint32_t probe = 0; probe < 64; probe++) {
        uint32_t slot = (uint32_t)((h >> 4) + probe) & (TABLE_SLOTS - 1);
        uint32_t id = atomic_load_explicit(&g_table[slot], memory_order_acquire);
        if (id && same(id, h, pcs, n)) return id;
        if (id) continue;
        if (!mine) {
            uint32_t at = atomic_fetch_add(&g_used, (uint32_t)n + 2);
            if (at + (uint32_t)n + 2 > ARENA_WORDS) break;
            uintptr_t *s = g_arena + at;
            s[0] = h;
            s[1] = (uintptr_t)n;
            for (int i = 0; i < n; i++) s[2 + i] = pcs[i];
            mine = at + 1;
        }
        uint32_t expected = 0;
        if (atomic_compare_exchange_strong_explicit(&g_table[slot], &expected, mine, memory_order_release,
                                                    memory_order_acquire))
            return mine;
        if (same(expected, h, pcs, n)) return expected;  // another thread stored it first
    }
    atomic_fetch_add(&g_dropped, 1);
    return 0;
}

int fl_stack_store_get(uint32_t id, const uintptr_t **pcs) {
    if (!g_arena || id == 0 || id > atomic_load(&g_used)) return 0;
    const uintptr_t *s = g_arena + id - 1;
    *pcs = s + 2;
    return (int)s[1];
}

uint64_t fl_stack_store_dropped(void) { return atomic_load(&g_dropped); }

int fl_stack_capture_from(const void *caller, uintptr_t *pcs, int max) {
    uintptr_t all[FL_STACK_STORE_FRAMES + 16];
    int n = fl_capture_self(all, FL_STACK_STORE_FRAMES + 16);
    int start = 0;
    // Frame 0 is inside fl_capture_self; the caller's return address is
    // within the first few frames (the interposer, the detector's hook).
    for (int i = 0; i < n && i < 12; i++)
        if (all[i] == (uintptr_t)caller) { start = i; break; }
    int k = 0;
    for (int i = start; i < n && k < max; i++) pcs[k++] = all[i];
    return k;
}
