// Giving free arena memory back to the kernel. Memory released to a class
// serves only that class, so a program whose sizes shift (a million 64-byte
// nodes freed, then a million 128-byte ones) would otherwise keep both
// phases resident. When a class takes never-used memory, the classes that
// hold many free blocks are scanned: a span whose every block is on its
// class's free list leaves the list and goes back to the kernel
// (MADV_DONTNEED), to be reused as zero pages before never-used memory.
//
// Blocks in threads' caches and in the quarantine count as in use, so a span
// holding one of them stays. A class is scanned again only once its free
// list has doubled since the last scan, so a list of scattered free blocks
// (spans that never empty) is not walked on every growth.
#include "shim_arena_class.h"
#include "shim_spin.h"

#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

/// Free bytes a class must hold before it is scanned.
#define SCAN_MIN_BYTES (1u << 20)
/// Free bytes all classes together must hold before any is.
#define SCAVENGE_MIN_BYTES (4u << 20)
/// Marks a span in `g_span_free` whose every block is free.
#define SPAN_EMPTY 0xFFFFu

_Static_assert(SHIM_SPAN_SIZE / 16 < SPAN_EMPTY, "a span's block count fits below the marker");

static _Atomic int g_lock;
static _Atomic uint64_t g_reclaimed_bytes;
// Free blocks per span of the class being scanned (only under g_lock).
static uint16_t g_span_free[SHIM_SPANS_PER_REGION];

static inline uint32_t span_of(const arena_class *k, const void *p) {
    return (uint32_t)(((uintptr_t)p - k->start) >> SHIM_SPAN_SHIFT);
}

// Scans one class (its lock held): counts free blocks per span, unlinks the
// blocks of spans that are wholly free, then gives those spans back.
static void scan_class(arena_class *k) {
    uint32_t spans = span_of(k, (void *)k->frontier);
    memset(g_span_free, 0, spans * sizeof g_span_free[0]);
    for (void *p = k->free; p; p = *(void **)p) g_span_free[span_of(k, p)]++;
    uint32_t empty = 0;
    for (uint32_t s = 0; s < spans; s++) {
        if (g_span_free[s] == k->per_span) { g_span_free[s] = SPAN_EMPTY; empty++; }
    }
    if (empty) {
        // Relink first: the links inside a span read as zeros once it is given back.
        void **tail = &k->free;
        uint64_t kept = 0;
        for (void *p = k->free, *next; p; p = next) {
            next = *(void **)p;
            if (g_span_free[span_of(k, p)] == SPAN_EMPTY) continue;
            *tail = p;
            tail = (void **)p;
            kept++;
        }
        *tail = 0;
        k->free_count = kept;
        for (uint32_t s = 0; s < spans;) {
            if (g_span_free[s] != SPAN_EMPTY) { s++; continue; }
            uint32_t run = s;
            while (run < spans && g_span_free[run] == SPAN_EMPTY) k->reclaimed[k->reclaimed_count++] = run++;
            madvise((void *)(k->start + ((uintptr_t)s << SHIM_SPAN_SHIFT)), (size_t)(run - s) << SHIM_SPAN_SHIFT, MADV_DONTNEED);
            s = run;
        }
        atomic_fetch_add_explicit(&g_reclaimed_bytes, (uint64_t)empty << SHIM_SPAN_SHIFT, memory_order_relaxed);
    }
    k->rescan_at = k->free_count * 2 + SCAN_MIN_BYTES / k->size;
}

void shim_arena_scavenge(void) {
    if (atomic_exchange_explicit(&g_lock, 1, memory_order_acquire)) return;  // someone else is at it
    atomic_store_explicit(&shim_arena_scavenge_wanted, 0, memory_order_relaxed);
    // A racy first look: most growth happens with little free anywhere.
    uint64_t total = 0;
    for (unsigned c = 0; c < SHIM_ARENA_CLASSES; c++)
        total += __atomic_load_n(&shim_arena_classes[c].free_count, __ATOMIC_RELAXED) * shim_arena_classes[c].size;
    if (total >= SCAVENGE_MIN_BYTES) {
        for (unsigned c = 0; c < SHIM_ARENA_CLASSES; c++) {
            arena_class *k = &shim_arena_classes[c];
            shim_spin_lock(&k->lock);
            if (k->free_count * k->size >= SCAN_MIN_BYTES && k->free_count >= k->rescan_at) scan_class(k);
            shim_spin_unlock(&k->lock);
        }
    }
    atomic_store_explicit(&g_lock, 0, memory_order_release);
}

uint64_t shim_arena_reclaimed_bytes(void) { return atomic_load_explicit(&g_reclaimed_bytes, memory_order_relaxed); }

void shim_arena_scavenge_lock(void) { shim_spin_lock(&g_lock); }
void shim_arena_scavenge_unlock(void) { shim_spin_unlock(&g_lock); }
