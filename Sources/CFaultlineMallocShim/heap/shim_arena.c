#include "shim_arena.h"
#include "shim_arena_class.h"
#include "shim_free_slot.h"
#include "shim_spin.h"
#include "shim_thread.h"

#include <stdatomic.h>
#include <sys/mman.h>

// Classes: 16-byte steps up to 512 bytes (32 classes), then 8 per doubling
// up to SHIM_ARENA_MAX_BLOCK: at most 1/8 of a block above 512 bytes is
// rounding.
#define CLASS_COUNT SHIM_ARENA_CLASSES
#define SMALL_CLASSES 32
/// A class whose region is full falls back to glibc.
#define REGION_SIZE SHIM_ARENA_REGION_SIZE
/// Pages are made writable this many bytes at a time (whole spans).
#define COMMIT_STEP (4u * SHIM_SPAN_SIZE)

_Static_assert(SHIM_SPAN_SIZE == 0x10000u, "shim_arena_at_slot_start masks offsets into 64 KiB spans");

arena_class shim_arena_classes[CLASS_COUNT] __attribute__((aligned(64)));
uintptr_t shim_arena_base;
int shim_arena_trimmed;
uint32_t shim_arena_class_limit[CLASS_COUNT];
uint32_t shim_arena_class_sizes[SHIM_ARENA_CLASSES];
uint64_t shim_arena_class_recip[SHIM_ARENA_CLASSES];
static _Atomic size_t g_committed;
/// 0: not reserved yet, 1: being reserved, 2: ready, 3: reservation failed.
static _Atomic int g_state;
_Atomic int shim_arena_scavenge_wanted;

static inline unsigned class_of(size_t total) {
    if (total <= 512) return total ? (unsigned)((total - 1) >> 4) : 0;
    unsigned k = 63u - (unsigned)__builtin_clzll((unsigned long long)(total - 1));  // 2^k < total <= 2^(k+1)
    unsigned sub = (unsigned)((total - (1ull << k) - 1) >> (k - 3));
    return SMALL_CLASSES + (k - 9) * 8 + sub;
}

/// floor(log2) of the largest block, and the classes up to it.
#define MAX_LOG2 (31 - __builtin_clz(SHIM_ARENA_MAX_BLOCK))
_Static_assert(SMALL_CLASSES + 8 * (MAX_LOG2 - 9) + ((SHIM_ARENA_MAX_BLOCK - (1u << MAX_LOG2)) >> (MAX_LOG2 - 3)) == CLASS_COUNT &&
                   SHIM_ARENA_MAX_BLOCK % (1u << (MAX_LOG2 - 3)) == 0,
               "one class per step up to the largest block, which ends a step");

static inline size_t class_size(unsigned c) {
    if (c < SMALL_CLASSES) return ((size_t)c + 1) << 4;
    unsigned k = 9 + (c - SMALL_CLASSES) / 8, sub = (c - SMALL_CLASSES) % 8;
    return ((size_t)1 << k) + (((size_t)sub + 1) << (k - 3));
}

// Reserves every region at once, inaccessible until a class grows into it
// (so core dumps and /proc/self/maps stay small). Races are settled by the
// state word: the loser waits for the winner's mmap.
static int reserve(void) {
    int st = atomic_load_explicit(&g_state, memory_order_acquire);
    if (st == 2) return 1;
    if (st == 3) return 0;
    int expected = 0;
    if (atomic_compare_exchange_strong_explicit(&g_state, &expected, 1, memory_order_acq_rel, memory_order_acquire)) {
        void *p = mmap(0, CLASS_COUNT * REGION_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) {
            atomic_store_explicit(&g_state, 3, memory_order_release);
            return 0;
        }
        // Each class's stack of reclaimed spans, touched only when used.
        void *stacks = mmap(0, (size_t)CLASS_COUNT * SHIM_SPANS_PER_REGION * sizeof(uint32_t), PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (stacks == MAP_FAILED) {
            munmap(p, CLASS_COUNT * REGION_SIZE);
            atomic_store_explicit(&g_state, 3, memory_order_release);
            return 0;
        }
        uintptr_t base = (uintptr_t)p;
        for (unsigned c = 0; c < CLASS_COUNT; c++) {
            arena_class *k = &shim_arena_classes[c];
            k->size = shim_arena_class_sizes[c] = (uint32_t)class_size(c);
            shim_arena_class_recip[c] = ((1ull << 32) / k->size) + 1;
            k->per_span = SHIM_SPAN_SIZE / k->size;
            k->start = k->frontier = k->committed = k->next = k->span_end = base + c * REGION_SIZE;
            k->reclaimed = (uint32_t *)stacks + (size_t)c * SHIM_SPANS_PER_REGION;
            shim_arena_class_limit[c] = (uint32_t)REGION_SIZE;
        }
        // Published last: shim_arena_owns is true from here on.
        __atomic_store_n(&shim_arena_base, base, __ATOMIC_RELEASE);
        atomic_store_explicit(&g_state, 2, memory_order_release);
        return 1;
    }
    while ((st = atomic_load_explicit(&g_state, memory_order_acquire)) == 1) shim_cpu_relax();
    return st == 2;
}

// Moves the class to a new span: one given back to the kernel earlier
// (zero pages again), else the next never-used one, made writable in steps.
// Called with the class's lock held; 0 when the region is full.
static int next_span(arena_class *k) {
    uintptr_t span;
    if (k->reclaimed_count) {
        span = k->start + ((uintptr_t)k->reclaimed[--k->reclaimed_count] << SHIM_SPAN_SHIFT);
    } else {
        if (k->frontier + SHIM_SPAN_SIZE > k->committed) {
            // The region's end, or after a trim what the class kept of it.
            if (k->committed + COMMIT_STEP > k->start + shim_arena_class_limit[k - shim_arena_classes]) return 0;
            if (mprotect((void *)k->committed, COMMIT_STEP, PROT_READ | PROT_WRITE) != 0) return 0;
            __atomic_store_n(&k->committed, k->committed + COMMIT_STEP, __ATOMIC_RELEASE);
            atomic_fetch_add_explicit(&g_committed, COMMIT_STEP, memory_order_relaxed);
        }
        span = k->frontier;
        k->frontier += SHIM_SPAN_SIZE;
        // New memory: time to see whether other classes hold memory to give back.
        atomic_store_explicit(&shim_arena_scavenge_wanted, 1, memory_order_relaxed);
    }
    k->next = span;
    k->span_end = span + (uintptr_t)k->per_span * k->size;
    return 1;
}

// Each thread keeps a few released blocks of each class to itself, so the
// common allocation and release take no lock: an atomic exchange waits for
// the thread's pending stores (the program's writes to cold memory), and
// cost more than the rest of malloc. Initial-exec TLS: no allocation.
typedef struct thread_cache {
    void *head[CLASS_COUNT];
    uint8_t count[CLASS_COUNT];  ///< at most two batches (64): small, since static TLS comes out of every thread's stack
    int off;  ///< 1 once the thread is exiting: blocks go straight to the classes
} thread_cache;

static __thread thread_cache t_cache __attribute__((tls_model("initial-exec")));

/// Blocks a thread moves between its cache and a class at a time; the
/// cache keeps up to two batches. By bytes (32 KiB), but never fewer than
/// 4 blocks: with 1 or 2 (4 KiB's old batch), a program freeing and
/// allocating blocks of one class in random order took the class lock on
/// most calls.
static inline unsigned batch_of(const arena_class *k) {
    unsigned n = (32u << 10) / k->size;
    return n < 4 ? 4 : n > 32 ? 32 : n;
}

/// Classes above its own a block may be borrowed from (at most 2 x 1/8 of
/// its size more, or 32 bytes below 512).
#define BORROW_SPAN 2

// A free block of one of the next BORROW_SPAN classes, for class `c`
// whose cache and list are empty: from this thread's caches first (no
// lock), then from those classes' lists. NULL when they have none either.
// Why: memory released to a class serves only that class, so a program
// mixing sizes at random carved each class up to its own peak, the sum of
// the peaks (uniform 16-4111 B: 16.6 MB against glibc's 14.0). The block
// keeps its own class (its address says which): its red zone runs to the
// end of that class's slot, and it goes back there when freed.
static void *borrow(unsigned c) {
    for (unsigned d = c + 1; d <= c + BORROW_SPAN && d < CLASS_COUNT; d++) {
        void *p = t_cache.head[d];
        if (p) {
            t_cache.head[d] = *(void **)p;
            t_cache.count[d]--;
            return p;
        }
    }
    for (unsigned d = c + 1; d <= c + BORROW_SPAN && d < CLASS_COUNT; d++) {
        arena_class *k = &shim_arena_classes[d];
        if (!__atomic_load_n(&k->free, __ATOMIC_RELAXED)) continue;  // a racy look first: most are empty
        shim_spin_lock(&k->lock);
        void *p = k->free;
        if (p) {
            k->free = *(void **)p;
            k->free_count--;
        }
        shim_spin_unlock(&k->lock);
        if (p) return p;
    }
    return 0;
}

// Refills the thread's cache of class `c` from the class's list; when that
// is empty, borrows a free block of a slightly bigger class, else hands
// out one block never used since its span was (re)taken, which reads as
// zeros (fresh).
static void *refill(unsigned c, int *fresh) {
    arena_class *k = &shim_arena_classes[c];
    unsigned want = batch_of(k);
    shim_spin_lock(&k->lock);
    void *p = k->free;
    if (!p) {
        shim_spin_unlock(&k->lock);
        p = borrow(c);
        if (p) {
            *fresh = 0;
            return p;
        }
        shim_spin_lock(&k->lock);
        p = k->free;  // released to it meanwhile
    }
    if (p) {
        // Take up to `want` blocks: the first is returned, the rest cached.
        void *last = p;
        unsigned n = 1;
        while (n < want && *(void **)last) { last = *(void **)last; n++; }
        k->free = *(void **)last;
        k->free_count -= n;
        shim_spin_unlock(&k->lock);
        *(void **)last = t_cache.head[c];
        t_cache.head[c] = *(void **)p;
        t_cache.count[c] = (uint8_t)(t_cache.count[c] + n - 1);
        *fresh = 0;
        return p;
    }
    if (k->next + k->size > k->span_end && !next_span(k)) {
        shim_spin_unlock(&k->lock);
        return 0;
    }
    p = (void *)k->next;
    k->next += k->size;
    shim_spin_unlock(&k->lock);
    if (atomic_load_explicit(&shim_arena_scavenge_wanted, memory_order_relaxed)) shim_arena_scavenge();
    *fresh = 1;
    return p;
}

void *shim_arena_alloc(size_t total, int *fresh) {
    if (total > SHIM_ARENA_MAX_BLOCK || !reserve()) return 0;
    // The thread's cache is handed back when it exits (shim_init.c).
    if (__builtin_expect(!shim_self.exit_watched, 0)) shim_init_watch_thread();
    unsigned c = class_of(total);
    void *p = t_cache.head[c];
    if (__builtin_expect(p != 0, 1)) {
        t_cache.head[c] = *(void **)p;
        t_cache.count[c]--;
        *fresh = 0;
        return p;
    }
    return refill(c, fresh);
}

// Moves `n` blocks from the head of the thread's cache of `c` to the class.
static void spill(unsigned c, unsigned n) {
    void *first = t_cache.head[c], *last = first;
    for (unsigned i = 1; i < n; i++) last = *(void **)last;
    t_cache.head[c] = *(void **)last;
    t_cache.count[c] = (uint8_t)(t_cache.count[c] - n);
    arena_class *k = &shim_arena_classes[c];
    shim_spin_lock(&k->lock);
    *(void **)last = k->free;
    k->free = first;
    k->free_count += n;
    shim_spin_unlock(&k->lock);
}

void shim_arena_free(void *block) {
    unsigned c = shim_arena_class_at(block);
    if (__builtin_expect(!shim_self.exit_watched, 0)) shim_init_watch_thread();
    *(void **)block = t_cache.head[c];
    t_cache.head[c] = block;
    t_cache.count[c]++;
    // Keep at most two batches; the older half goes back to the class.
    unsigned b = batch_of(&shim_arena_classes[c]);
    if (__builtin_expect(t_cache.count[c] > 2 * b || t_cache.off, 0)) spill(c, t_cache.off ? t_cache.count[c] : b);
}

// 1 when `block` is on this thread's cache of class `c` (walked only when
// its second word holds its released mark: a double free, or bytes that
// happen to equal it).
static __attribute__((noinline, cold)) int cached_here(const void *block, unsigned c) {
    unsigned n = t_cache.count[c];
    for (void *p = t_cache.head[c]; p && n; p = *(void **)p, n--)
        if (p == block) return 1;
    return 0;
}

// A headerless block's released mark: bound to its address, so a program
// that fills its blocks with one byte (the mix workload's 0xFD in one
// block of 256) never walks the cache, as it did with the constant
// free-slot pattern.
static inline uint64_t released_mark(const void *block) { return ((uintptr_t)block * 0x9E3779B97F4A7C15ull) ^ SHIM_FREE_SLOT_WORD; }

int shim_arena_released_here(const void *block) {
    uint64_t w;
    __builtin_memcpy(&w, (const char *)block + 8, 8);
    return __builtin_expect(w == released_mark(block), 0) && cached_here(block, shim_arena_class_at(block));
}

int shim_arena_free_bare(void *block) {
    if (shim_arena_released_here(block)) return 1;
    uint64_t mark = released_mark(block);
    __builtin_memcpy((char *)block + 8, &mark, 8);
    shim_arena_free(block);
    return 0;
}

void shim_arena_thread_exit(void) {
    t_cache.off = 1;
    for (unsigned c = 0; c < CLASS_COUNT; c++)
        if (t_cache.count[c]) spill(c, t_cache.count[c]);
}

int shim_arena_readable_before(const void *p, size_t n) {
    uintptr_t a = (uintptr_t)p;
    if (!shim_arena_owns(p)) return 0;
    const arena_class *k = &shim_arena_classes[shim_arena_class_at(p)];
    return a - n >= k->start && a <= __atomic_load_n(&k->committed, __ATOMIC_ACQUIRE);
}

void shim_arena_range(uintptr_t *lo, uintptr_t *hi) {
    *lo = atomic_load_explicit(&g_state, memory_order_acquire) == 2 ? shim_arena_base : 0;
    *hi = *lo ? *lo + CLASS_COUNT * REGION_SIZE : 0;
}

void shim_arena_trim(void) {
    if (atomic_load_explicit(&g_state, memory_order_acquire) != 2 || __atomic_load_n(&shim_arena_trimmed, __ATOMIC_ACQUIRE))
        return;
    // Each class stops at its writable part (under its lock, so no class is
    // growing meanwhile); ownership narrows before anything else can be
    // mapped where the rest was.
    for (unsigned c = 0; c < CLASS_COUNT; c++) {
        arena_class *k = &shim_arena_classes[c];
        shim_spin_lock(&k->lock);
        shim_arena_class_limit[c] = (uint32_t)(k->committed - k->start);
        shim_spin_unlock(&k->lock);
    }
    __atomic_store_n(&shim_arena_trimmed, 1, __ATOMIC_RELEASE);
    for (unsigned c = 0; c < CLASS_COUNT; c++) {
        const arena_class *k = &shim_arena_classes[c];
        uintptr_t end = k->start + shim_arena_class_limit[c];
        if (end < k->start + REGION_SIZE) munmap((void *)end, k->start + REGION_SIZE - end);
    }
}

size_t shim_arena_committed(void) { return atomic_load_explicit(&g_committed, memory_order_relaxed); }

int shim_arena_locked_here(void) {
    for (unsigned c = 0; c < CLASS_COUNT; c++)
        if (shim_spin_held_here(&shim_arena_classes[c].lock)) return 1;
    return 0;
}

void shim_arena_lock_all(void) {
    shim_arena_scavenge_lock();
    for (unsigned c = 0; c < CLASS_COUNT; c++) shim_spin_lock(&shim_arena_classes[c].lock);
}

void shim_arena_unlock_all(void) {
    for (unsigned c = CLASS_COUNT; c-- > 0;) shim_spin_unlock(&shim_arena_classes[c].lock);
    shim_arena_scavenge_unlock();
}

