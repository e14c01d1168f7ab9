// heap_buffer_overflow and heap_buffer_underflow reports: a block's red
// zone changed (shim_redzone.h), or the bytes in front of it (its header,
// its live-list links, the end of the previous block's red zone).
#include "shim_report.h"
#include "shim_find.h"
#include "shim_heap.h"
#include "shim_suppress.h"
#include "shim_thread.h"
#include "sigsafe.h"

#include <string.h>

typedef struct text { char s[512]; size_t n; } text;
static void put(text *t, const char *s) { t->n += fl_strlcpy(t->s + t->n, s, sizeof t->s - t->n); }
static void put_u(text *t, uint64_t v) { char b[24]; b[fl_fmt_u64(b, v)] = 0; put(t, b); }
static void put_hex(text *t, uint64_t v) { char b[24]; b[fl_fmt_hex(b, v)] = 0; put(t, b); }

static void write_bytes(fl_json *w, const char *key, const unsigned char *p, size_t n) {
    static const char hex[] = "0123456789abcdef";
    char out[65];
    if (n > 32) n = 32;
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[p[i] >> 4];
        out[2 * i + 1] = hex[p[i] & 15];
    }
    out[2 * n] = 0;
    fl_json_string(w, key, out);
}

// Whether a suppression of `kind` hides this error (shim_suppress.h):
// matched against block `b`'s allocation stack (and its free stack when it
// is quarantined), and against the calling thread only when the error is
// found by a free or realloc of the block itself. At the quarantine's
// release or the exit check the calling thread is whichever free pushed the
// block out, or exit: a pattern matching it would hide unrelated errors.
static int suppressed(fl_supp_kind kind, const shim_block *b, uint32_t state, const char *detected) {
    if (!shim_ready || shim_self.depth > 0) return 0;
    int current = !fl_streq(detected, "exit_check") && !fl_streq(detected, "quarantine_release");
    return shim_suppress_error(kind, current, b ? b->alloc_stack : 0, b && state == SHIM_QUARANTINED ? b->free_stack : 0);
}

void shim_report_heap_overflow(const shim_block *b, const void *user, uint32_t state, size_t first, size_t last,
                               size_t zone, const unsigned char *now, const char *detected) {
    if (suppressed(FL_SUPP_HEAP_BUFFER_OVERFLOW, b, state, detected)) return;
    fl_json *w = shim_report_begin_error("heap_buffer_overflow", user);
    if (!w) return;
    shim_report_thread(w);
    fl_json_begin_object(w, "heap_buffer_overflow");
    fl_json_uint(w, "offset", first);
    fl_json_uint(w, "length", last - first + 1);
    write_bytes(w, "bytes", now + first, last - first + 1);
    fl_json_uint(w, "red_zone", zone);
    fl_json_string(w, "detected", detected);
    fl_json_end_object(w);
    shim_write_block(w, b, user, state, 0, 0, shim_report_images());
    text t = {.n = 0};
    put(&t, "faultline: heap_buffer_overflow: ");
    put_u(&t, last - first + 1);
    put(&t, " byte(s) written ");
    put_u(&t, first);
    put(&t, " past the end of the ");
    put_u(&t, b->size);
    put(&t, "-byte block at ");
    put_hex(&t, (uintptr_t)user);
    put(&t, ", found at ");
    put(&t, detected);
    shim_report_end_error(w, t.s, fl_streq(detected, "exit_check"));
}

// Blocks whose underflow was reported: a damaged header stays in place
// (never followed nor given back), so the exit check would find it again.
#define UNDERFLOWED_MAX 64
static uintptr_t g_underflowed[UNDERFLOWED_MAX];
static unsigned g_underflowed_n;

// 1 when `user`'s underflow was reported before; records it otherwise.
static int reported_before(const void *user) {
    unsigned n = __atomic_load_n(&g_underflowed_n, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n && i < UNDERFLOWED_MAX; i++)
        if (__atomic_load_n(&g_underflowed[i], __ATOMIC_RELAXED) == (uintptr_t)user) return 1;
    unsigned at = __atomic_fetch_add(&g_underflowed_n, 1, __ATOMIC_ACQ_REL);
    if (at < UNDERFLOWED_MAX) __atomic_store_n(&g_underflowed[at], (uintptr_t)user, __ATOMIC_RELEASE);
    return 0;
}

void shim_report_heap_underflow(const shim_block *b, const void *user, uint32_t state, const char *region,
                                size_t distance, size_t length, const shim_block *before, const void *before_user,
                                const char *detected) {
    if (reported_before(user)) return;
    // A header that fails its checksum gives no stacks: only the freeing thread can match.
    if (suppressed(FL_SUPP_HEAP_BUFFER_UNDERFLOW, b, state, detected)) return;
    fl_json *w = shim_report_begin_error("heap_buffer_underflow", user);
    if (!w) return;
    shim_report_thread(w);
    fl_json_begin_object(w, "heap_buffer_underflow");
    fl_json_string(w, "region", region);
    if (distance) {
        fl_json_uint(w, "distance", distance);
        fl_json_uint(w, "length", length);
    }
    fl_json_string(w, "detected", detected);
    // The block in front: whose overflow, or whose pointer arithmetic, it may be.
    shim_found f;
    const shim_block *prev = before;
    const void *prev_user = before_user;
    uint32_t prev_state = SHIM_LIVE;
    if (!prev) {
        uintptr_t h = (uintptr_t)user - SHIM_HEADER_SIZE - SHIM_LINK_SIZE;
        if (shim_find_block(h - 1, 1u << 16, &f) || f.state == SHIM_RELEASED) {
            prev = &f.copy;
            prev_user = shim_block_user(f.header);
            prev_state = f.state;
        }
    }
    if (prev) {
        fl_json_begin_object(w, "block_before");
        fl_json_hex(w, "address", (uintptr_t)prev_user);
        if (prev_state != SHIM_RELEASED) fl_json_uint(w, "size", prev->size);
        fl_json_string(w, "state", shim_state_name(prev_state));
        fl_json_end_object(w);
    }
    fl_json_end_object(w);
    if (b) {
        shim_write_block(w, b, user, state, 0, 0, shim_report_images());
    } else {
        // Nothing of the header is trusted: the address alone.
        fl_json_begin_object(w, "block");
        fl_json_hex(w, "address", (uintptr_t)user);
        fl_json_string(w, "state", "corrupt");
        fl_json_end_object(w);
    }
    text t = {.n = 0};
    put(&t, "faultline: heap_buffer_underflow: ");
    if (fl_streq(region, "header")) put(&t, "the shim's header in front of block ");
    else if (fl_streq(region, "live_link")) put(&t, "the leak list's links in front of block ");
    else { put_u(&t, length); put(&t, " byte(s) "); put_u(&t, distance); put(&t, " in front of block "); }
    put_hex(&t, (uintptr_t)user);
    if (b) { put(&t, " ("); put_u(&t, b->size); put(&t, " bytes)"); }
    put(&t, fl_streq(region, "red_zone") ? " were written" : " was overwritten");
    put(&t, ", found at ");
    put(&t, detected);
    shim_report_end_error(w, t.s, fl_streq(detected, "exit_check"));
}
