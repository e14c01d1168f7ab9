#include "tool_log.h"
#include "cpu_report.h"
#include "report_file.h"
#include "sigsafe.h"
#include "stderr_capture.h"
#include "thread_capture.h"

#include <sys/mman.h>
#include <unistd.h>

#define REPORT_BUF (2u << 20)
#define SHOWN_STACKS 8

static char *g_buf;
static fl_image_list *g_images;

int fl_cpu_report_init(void) {
    if (g_buf) return 0;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    g_buf = mmap(0, REPORT_BUF, PROT_READ | PROT_WRITE, flags, -1, 0);
    g_images = mmap(0, sizeof *g_images, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (g_buf == MAP_FAILED || g_images == MAP_FAILED) { g_buf = 0; return -1; }
    return 0;
}

static uint64_t percent(uint64_t part, uint64_t whole) { return whole ? (part * 100 + whole / 2) / whole : 0; }

int fl_cpu_report_hog(const fl_cpu_episode_info *e) {
    if (!g_buf) return -1;
    uint64_t t0 = fl_monotonic_ns();
    fl_images_load(g_images);
    fl_cpu_stacks *st = e->stacks;
    fl_cpu_stacks_sort(st);
    fl_report r;
    fl_report_begin(&r, g_buf, REPORT_BUF, "cpu_hog");
    fl_json *w = &r.json;
    char name[64];
    fl_json_begin_object(w, "crashed_thread");
    fl_json_int(w, "tid", e->tid);
    if (fl_thread_name(e->tid, name, sizeof name) > 0) fl_json_string(w, "name", name);
    fl_json_bool(w, "main", e->tid == getpid());
    fl_json_string(w, "stack", "culprit");
    if (st->distinct) {
        fl_report_thread_unwinder(w, st->s[0].by_fp);
        fl_report_frames(w, "frames", st->s[0].pcs, st->s[0].n, FL_FRAME0_INTERRUPTED, g_images);
    } else {
        fl_report_frames(w, "frames", 0, 0, FL_FRAME0_INTERRUPTED, g_images);
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
        fl_report_frames(w, "frames", st->s[i].pcs, st->s[i].n, FL_FRAME0_INTERRUPTED, g_images);
        fl_json_end_object(w);
    }
    fl_json_end_array(w);
    fl_json_end_object(w);
    fl_report_images(w, g_images);
    fl_report_capture(w, t0);
    char file[128];
    if (fl_report_commit(&r, file, sizeof file) != 0) return -1;
    char line[256];
    size_t n = fl_strlcpy(line, "faultline: report written: ", sizeof line);
    n += fl_strlcpy(line + n, file, sizeof line - n);
    if (n < sizeof line - 1) line[n++] = '\n';
    fl_log_write(line, n);
    return 0;
}
