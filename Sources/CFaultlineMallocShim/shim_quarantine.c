#include "shim_quarantine.h"
#include "shim_config.h"
#include "shim_real.h"
#include "shim_report.h"
#include "sigsafe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#define RELEASE_BATCH 256

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static shim_block **g_ring;
static size_t g_ring_cap;    // slots (max_count + 1)
static size_t g_head;        // oldest
static size_t g_tail;        // next free slot
static size_t g_count;
static size_t g_bytes;
static size_t g_max_bytes;
static size_t g_max_count;

int shim_quarantine_init(size_t max_bytes, size_t max_count) {
    if (g_ring) return 0;
    size_t cap = max_count + 1;
    void *p = mmap(0, cap * sizeof(shim_block *), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return -1;
    g_ring_cap = cap;
    g_max_bytes = max_bytes;
    g_max_count = max_count;
    atomic_store_explicit((_Atomic(shim_block **) *)&g_ring, (shim_block **)p, memory_order_release);
    return 0;
}

void shim_quarantine_lock(void) { pthread_mutex_lock(&g_lock); }
void shim_quarantine_unlock(void) { pthread_mutex_unlock(&g_lock); }

void shim_quarantine_usage(size_t *count, size_t *bytes) {
    pthread_mutex_lock(&g_lock);
    *count = g_count;
    *bytes = g_bytes;
    pthread_mutex_unlock(&g_lock);
}

int shim_scribble_changed(const shim_block *b, size_t limit, size_t *offset, size_t *length) {
    const unsigned char *p = shim_block_user(b);
    size_t n = b->size < limit ? b->size : limit;
    const uint64_t pat = 0x5555555555555555ull;
    size_t i = 0, first = n, last = 0;
    // Word-wise fast path; the user pointer is 16-aligned.
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if (__builtin_expect(w != pat, 0)) { first = i; break; }
    }
    if (first == n) {
        for (; i < n; i++) if (p[i] != SHIM_SCRIBBLE_BYTE) { first = i; break; }
        if (first == n) return 0;
    }
    while (first < n && p[first] == SHIM_SCRIBBLE_BYTE) first++;
    for (size_t j = n; j > first; j--) if (p[j - 1] != SHIM_SCRIBBLE_BYTE) { last = j - 1; break; }
    *offset = first;
    *length = last - first + 1;
    return 1;
}

// Verifies and frees blocks that left the quarantine (no lock held).
static void release_batch(shim_block **batch, int n) {
    for (int i = 0; i < n; i++) {
        // The blocks are cold after their stay: start the next loads early.
        if (i + 4 < n) __builtin_prefetch(batch[i + 4]);
        shim_block *b = batch[i];
        size_t off, len;
        if (shim_cfg.scribble_limit && shim_scribble_changed(b, shim_cfg.scribble_limit, &off, &len))
            shim_report_write_after_free(b, off, len, "quarantine_release");
        __atomic_store_n(&b->magic, shim_magic(b, SHIM_RELEASED), __ATOMIC_RELEASE);
        shim_real_free_block(b);
    }
}

void shim_quarantine_put(shim_block *b) {
    shim_block *batch[RELEASE_BATCH];
    int n = 0;
    uint64_t cost = shim_block_cost(b);
    // Before the constructor (no ring yet) nothing is held and no lock is
    // taken: a sanitizer starting up first may not have its pthread
    // interceptors ready.
    if (g_max_count == 0 || !__atomic_load_n(&g_ring, __ATOMIC_ACQUIRE)) {
        release_batch(&b, 1);
        return;
    }
    pthread_mutex_lock(&g_lock);
    g_ring[g_tail] = b;
    g_tail = g_tail + 1 == g_ring_cap ? 0 : g_tail + 1;
    g_count++;
    g_bytes += cost;
    for (;;) {
        if (g_bytes > g_max_bytes || g_count > g_max_count) {
            // Leave in a batch: down to 7/8 of each limit.
            size_t low_bytes = g_max_bytes - g_max_bytes / 8;
            size_t low_count = g_max_count - g_max_count / 8;
            while (n < RELEASE_BATCH && g_count > 0 && (g_bytes > low_bytes || g_count > low_count)) {
                shim_block *old = g_ring[g_head];
                g_head = g_head + 1 == g_ring_cap ? 0 : g_head + 1;
                g_count--;
                g_bytes -= shim_block_cost(old);
                batch[n++] = old;
            }
        }
        pthread_mutex_unlock(&g_lock);
        if (n == 0) return;
        release_batch(batch, n);
        if (n < RELEASE_BATCH) return;
        // A full batch: there may be more to release.
        n = 0;
        pthread_mutex_lock(&g_lock);
    }
}

int shim_quarantine_check_all(void) {
    int reported = 0;
    for (;;) {
        shim_block *bad = 0;
        pthread_mutex_lock(&g_lock);
        // Find one changed block and take it out of the ring (so no other
        // thread releases it while we report), keeping the FIFO order.
        size_t i = g_head;
        for (size_t k = 0; k < g_count; k++) {
            shim_block *b = g_ring[i];
            size_t off, len;
            if (shim_cfg.scribble_limit && shim_scribble_changed(b, shim_cfg.scribble_limit, &off, &len)) {
                bad = b;
                size_t j = i;
                for (size_t m = k; m + 1 < g_count; m++) {
                    size_t nj = j + 1 == g_ring_cap ? 0 : j + 1;
                    g_ring[j] = g_ring[nj];
                    j = nj;
                }
                g_tail = j;
                g_count--;
                g_bytes -= shim_block_cost(b);
                break;
            }
            i = i + 1 == g_ring_cap ? 0 : i + 1;
        }
        pthread_mutex_unlock(&g_lock);
        if (!bad) return reported;
        size_t off, len;
        shim_scribble_changed(bad, shim_cfg.scribble_limit, &off, &len);
        shim_report_write_after_free(bad, off, len, "exit_check");
        reported++;
        __atomic_store_n(&bad->magic, shim_magic(bad, SHIM_RELEASED), __ATOMIC_RELEASE);
        shim_real_free_block(bad);
    }
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
        if (visit(g_ring[i], ctx)) break;
    }
    pthread_mutex_unlock(&g_lock);
    return 1;
}
