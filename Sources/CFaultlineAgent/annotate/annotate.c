#include "fl_options.h"
#include "annotate.h"
#include "faultline.h"
#include "report_file.h"
#include "sigsafe.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

// One slot: a sequence count (odd while being written), its key ("" when
// free) and value. Readers copy a slot and keep the copy only when the
// count was even and unchanged across it: a report written from a signal
// handler that interrupted faultline_annotate never sees half a value.
typedef struct slot {
    atomic_uint seq;
    char key[FL_ANNOTATE_KEY_MAX + 1];
    char value[FL_ANNOTATE_VALUE_MAX + 1];
} slot;

static slot g_slots[FL_ANNOTATE_SLOTS];
static slot g_phase;  // key "phase" while one is set
// Writers take turns by this flag; a writer that finds it held (another
// thread, or the same one interrupted by a handler that annotates) spins a
// bounded while and then gives up with -1 rather than deadlock.
static atomic_flag g_writing = ATOMIC_FLAG_INIT;

static int lock(void) {
    for (long spins = 0; atomic_flag_test_and_set_explicit(&g_writing, memory_order_acquire); spins++)
        if (spins > 10000000) return -1;
    return 0;
}

static void unlock(void) { atomic_flag_clear_explicit(&g_writing, memory_order_release); }

static void store(slot *s, const char *key, const char *value) {
    atomic_fetch_add_explicit(&s->seq, 1, memory_order_acq_rel);  // odd: being written
    atomic_thread_fence(memory_order_release);
    fl_strlcpy(s->key, key, sizeof s->key);
    fl_strlcpy(s->value, value ? value : "", sizeof s->value);
    atomic_thread_fence(memory_order_release);
    atomic_fetch_add_explicit(&s->seq, 1, memory_order_release);
}

FAULTLINE_API int faultline_annotate(const char *key, const char *value) {
    if (!key || !key[0] || fl_strlen(key) > FL_ANNOTATE_KEY_MAX) return -1;
    if (lock() != 0) return -1;
    slot *found = NULL, *free_slot = NULL;
    for (int i = 0; i < FL_ANNOTATE_SLOTS; i++) {
        if (!g_slots[i].key[0]) { if (!free_slot) free_slot = &g_slots[i]; }
        else if (strcmp(g_slots[i].key, key) == 0) { found = &g_slots[i]; break; }
    }
    int rc = 0;
    if (!value || !value[0]) {
        if (found) store(found, "", "");  // removed
    } else if (found || free_slot) {
        store(found ? found : free_slot, key, value);
    } else {
        rc = -1;  // full
    }
    unlock();
    return rc;
}

FAULTLINE_API int faultline_set_phase(const char *name) {
    if (lock() != 0) return -1;
    store(&g_phase, name && name[0] ? "phase" : "", name);
    unlock();
    return 0;
}

// A consistent copy of `s` into `out`; 0 when it changed under us (three tries).
static int snapshot(const slot *s, slot *out) {
    for (int tries = 0; tries < 3; tries++) {
        unsigned before = atomic_load_explicit(&s->seq, memory_order_acquire);
        if (before & 1) continue;
        memcpy(out->key, s->key, sizeof out->key);
        memcpy(out->value, s->value, sizeof out->value);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&s->seq, memory_order_relaxed) == before) {
            out->key[sizeof out->key - 1] = 0;
            out->value[sizeof out->value - 1] = 0;
            return 1;
        }
    }
    return 0;
}

void fl_annotate_write(fl_json *w) {
    slot copy;
    if (snapshot(&g_phase, &copy) && copy.key[0]) fl_json_string(w, "phase", copy.value);
    int open = 0;
    for (int i = 0; i < FL_ANNOTATE_SLOTS; i++) {
        if (!snapshot(&g_slots[i], &copy) || !copy.key[0]) continue;
        if (!open) { fl_json_begin_object(w, "annotations"); open = 1; }
        fl_json_string(w, copy.key, copy.value);
    }
    if (open) fl_json_end_object(w);
}

void fl_annotate_install(void) {
    // KEY=VALUE lines; a line without `=` or with an empty key is passed
    // over (faultline exec checks --annotate before it starts the program).
    const char *list = fl_option_value(FL_OPT_ANNOTATIONS);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : fl_strlen(p);
        const char *eq = memchr(p, '=', len);
        if (eq && eq > p && (size_t)(eq - p) <= FL_ANNOTATE_KEY_MAX) {
            char key[FL_ANNOTATE_KEY_MAX + 1], value[FL_ANNOTATE_VALUE_MAX + 1];
            size_t kl = (size_t)(eq - p), vl = len - kl - 1;
            if (vl > FL_ANNOTATE_VALUE_MAX) vl = FL_ANNOTATE_VALUE_MAX;
            memcpy(key, p, kl);
            key[kl] = 0;
            memcpy(value, eq + 1, vl);
            value[vl] = 0;
            faultline_annotate(key, value);
        }
        p = end ? end + 1 : p + len;
    }
    const char *phase = fl_option_value(FL_OPT_PHASE);
    if (phase && *phase) faultline_set_phase(phase);
    fl_report_set_annotations(fl_annotate_write);
    // The malloc shim's reports carry them too.
    typedef int (*share_fn)(void (*)(fl_json *));
    share_fn share = (share_fn)dlsym(RTLD_DEFAULT, "faultline_shim_share_annotations");
    if (share) share(fl_annotate_write);
}
