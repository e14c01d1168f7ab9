#include "cpu_report.h"
#include "detector_report.h"
#include "sigsafe.h"

#define REPORT_BUF (2u << 20)
#define SHOWN_STACKS 8

static fl_detector_report g_out;

int fl_cpu_report_init(void) { return fl_detector_report_map(&g_out, REPORT_BUF); }

static uint64_t percent(uint64_t part, uint64_t whole) { return whole ? (part * 100 + whole / 2) / whole : 0; }

int fl_cpu_report_hog(const fl_cpu_episode_info *e) {
    uint64_t t0 = fl_monotonic_ns();
    fl_report r;
    if (fl_detector_report_begin(&g_out, &r, "cpu_hog") != 0) return -1;
    fl_cpu_stacks *st = e->stacks;
    fl_cpu_stacks_sort(st);
    fl_json *w = &r.json;
    fl_detector_report_thread(w, e->tid, "culprit");
    if (st->distinct) {
        fl_report_thread_unwinder(w, st->s[0].by_fp);
        fl_report_frames(w, "frames", st->s[0].pcs, st->s[0].n, FL_FRAME0_INTERRUPTED, g_out.images);
    } else {
        fl_report_frames(w, "frames", 0, 0, FL_FRAME0_INTERRUPTED, g_out.images);
    }
    fl_json_end_object(w);
    fl_json_begin_object(w, "cpu_hog");
    fl_json_int(w, "threshold_percent", e->threshold_percent);
    fl_json_int(w, "window_ms", e->window_ms);
    fl_json_uint(w, "duration_ms", e->duration_ns / 1000000ull);
    fl_json_uint(w, "cpu_ms", e->cpu_ns / 1000000ull);
    fl_json_uint(w, "share_percent", percent(e->cpu_ns, e->duration_ns));
    fl_json_uint(w, "process_cpu_ms", e->process_cpu_ns / 1000000ull);
    fl_json_uint(w, "process_share_percent", percent(e->process_cpu_ns, e->duration_ns));
    fl_json_int(w, "sample_interval_ms", e->sample_ms);
    fl_json_begin_object(w, "samples");
    fl_json_int(w, "taken", st->samples);
    fl_json_int(w, "with_stack", st->samples - st->lost);
    fl_json_int(w, "distinct_stacks", st->distinct);
    if (st->other) fl_json_int(w, "not_kept", st->other);
    fl_json_end_object(w);
    fl_json_begin_array(w, "stacks");
    for (int i = 0; i < st->distinct && i < SHOWN_STACKS; i++) {
        fl_json_begin_object(w, 0);
        fl_json_int(w, "count", st->s[i].count);
        fl_report_frames(w, "frames", st->s[i].pcs, st->s[i].n, FL_FRAME0_INTERRUPTED, g_out.images);
        fl_json_end_object(w);
    }
    fl_json_end_array(w);
    fl_json_end_object(w);
    return fl_detector_report_end(&g_out, &r, t0);
}
