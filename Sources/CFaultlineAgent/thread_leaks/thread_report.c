#include "thread_report.h"
#include "detector_report.h"
#include "sigsafe.h"
#include "stack_store.h"
#include "thread_capture.h"
#include "thread_records.h"

#include <stdatomic.h>

#define REPORT_BUF (4u << 20)
#define MAX_GROUPS 256
#define SHOWN_GROUPS 64
#define SHOWN_THREADS 32

typedef struct { uint32_t stack; int count, first; } thread_group;

static fl_detector_report g_out;
static thread_group g_groups[MAX_GROUPS];
static atomic_int g_busy, g_armed;

int fl_thread_report_init(void) { return fl_detector_report_map(&g_out, REPORT_BUF); }

static int wanted(const fl_thread_record *r, int leak) {
    unsigned s = atomic_load(&r->state);
    if (!(s & FL_TR_USED)) return 0;
    return leak ? (s & FL_TR_JOINABLE) && (s & FL_TR_FINISHED) : !(s & FL_TR_FINISHED);
}

static void write_frames(fl_json *w, const char *key, uint32_t stack) {
    const uintptr_t *pcs = 0;
    int n = fl_stack_store_get(stack, &pcs);
    fl_report_frames(w, key, pcs, n, FL_FRAME0_RETURN_ADDRESS, g_out.images);
}

static void write_thread(fl_json *w, const fl_thread_record *r, int leak, uint64_t now) {
    fl_json_begin_object(w, 0);
    pid_t tid = atomic_load(&r->tid);
    if (tid) fl_json_int(w, "tid", tid);
    char name[64];
    if (leak ? r->name[0] != 0 : tid && fl_thread_name(tid, name, sizeof name) > 0)
        fl_json_string(w, "name", leak ? r->name : name);
    if (leak && r->finished_ns) fl_json_uint(w, "finished_ms_ago", (now - r->finished_ns) / 1000000ull);
    fl_json_uint(w, "age_ms", ((leak && r->finished_ns ? r->finished_ns : now) - r->created_ns) / 1000000ull);
    fl_json_end_object(w);
}

int fl_thread_report_write(const char *kind, int mark) {
    if (!g_out.buf || atomic_exchange(&g_busy, 1)) return 0;
    int leak = fl_streq(kind, "thread_leak"), lim = 0, n = 0, g = 0;
    fl_thread_record *recs = fl_thread_records(&lim);
    for (int i = 0; i < lim; i++) {
        if (!wanted(&recs[i], leak)) continue;
        n++;
        uint32_t st = atomic_load(&recs[i].stack);
        int k = 0;
        while (k < g && g_groups[k].stack != st) k++;
        if (k == g) {
            if (g == MAX_GROUPS) k = g - 1;
            else g_groups[g++] = (thread_group){st, 0, i};
        }
        g_groups[k].count++;
    }
    if (n == 0) { atomic_store(&g_busy, 0); return 0; }
    for (int i = 1; i < g; i++)
        for (int j = i; j > 0 && g_groups[j].count > g_groups[j - 1].count; j--) {
            thread_group t = g_groups[j]; g_groups[j] = g_groups[j - 1]; g_groups[j - 1] = t;
        }
    uint64_t t0 = fl_monotonic_ns();
    fl_report r;
    fl_detector_report_begin(&g_out, &r, kind);
    fl_json *w = &r.json;
    fl_detector_report_thread(w, fl_gettid(), "creating");
    write_frames(w, "frames", g_groups[0].stack);
    fl_json_end_object(w);
    fl_json_begin_object(w, kind);
    fl_json_int(w, "threads", n);
    fl_json_int(w, "stacks", g);
    if (!leak) fl_json_int(w, "mark", mark);
    fl_json_begin_array(w, "groups");
    for (int k = 0; k < g && k < SHOWN_GROUPS; k++) {
        fl_json_begin_object(w, 0);
        fl_json_int(w, "count", g_groups[k].count);
        write_frames(w, "creating_stack", g_groups[k].stack);
        fl_json_begin_array(w, "threads");
        int shown = 0;
        for (int i = g_groups[k].first; i < lim && shown < SHOWN_THREADS; i++)
            if (wanted(&recs[i], leak) && atomic_load(&recs[i].stack) == g_groups[k].stack) {
                write_thread(w, &recs[i], leak, t0);
                shown++;
            }
        fl_json_end_array(w);
        fl_json_end_object(w);
    }
    fl_json_end_array(w);
    fl_json_end_object(w);
    fl_detector_report_end(&g_out, &r, t0);
    atomic_store(&g_busy, 0);
    return n;
}

void fl_thread_report_at_exit(void) { atomic_store(&g_armed, 1); }

__attribute__((destructor)) static void thread_check_at_exit(void) {
    if (!atomic_load(&g_armed) || !fl_thread_leaks_on()) return;
    fl_thread_report_write("thread_leak", 0);
}
