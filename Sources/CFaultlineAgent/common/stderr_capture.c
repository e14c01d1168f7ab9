#include "stderr_capture.h"
#include "json_writer.h"
#include "sigsafe.h"

#include <sched.h>
#include <stdatomic.h>

static atomic_int g_active;
static char g_ring[FL_STDERR_RING];
// Bytes ever reserved (a writer's place in the ring) and ever published
// (copied in, in order): a reader takes the tail below g_published.
static atomic_size_t g_reserved, g_published;

int fl_stderr_capture_active(void) { return atomic_load(&g_active); }

void fl_stderr_keep(const void *p, size_t n) {
    if (!atomic_load_explicit(&g_active, memory_order_relaxed) || n == 0) return;
    const char *s = p;
    if (n > FL_STDERR_RING) { s += n - FL_STDERR_RING; n = FL_STDERR_RING; }
    size_t at = atomic_fetch_add(&g_reserved, n);
    for (size_t i = 0; i < n; i++) g_ring[(at + i) % FL_STDERR_RING] = s[i];
    // Publish in order: wait (briefly) for the writers before us. One that
    // a signal interrupted on this thread never finishes, so the wait is
    // bounded and then only moves the mark forward.
    for (int spins = 0; atomic_load(&g_published) < at && spins < 1000; spins++) sched_yield();
    size_t cur = atomic_load(&g_published);
    while (cur < at + n && !atomic_compare_exchange_weak(&g_published, &cur, at + n)) {}
}

size_t fl_stderr_tail(char *out, size_t cap) {
    if (!atomic_load(&g_active)) return 0;
    size_t total = atomic_load(&g_published);
    size_t n = total < FL_STDERR_RING ? total : FL_STDERR_RING;
    if (n > cap) n = cap;
    for (size_t i = 0; i < n; i++) out[i] = g_ring[(total - n + i) % FL_STDERR_RING];
    return n;
}

void fl_stderr_write_tail(fl_json *w, char *buf, size_t cap) {
    if (!atomic_load(&g_active)) return;
    size_t n = fl_stderr_tail(buf, cap);
    fl_json_string_n(w, "stderr_tail", buf, n);
}

int fl_stderr_tee_install(void);  // stderr_tee.c

int fl_stderr_capture_start(void) {
    if (atomic_load(&g_active)) return 0;
    if (fl_stderr_tee_install() != 0) return -1;
    atomic_store(&g_active, 1);
    return 0;
}
