#include "launch_report.h"
#include "detector_report.h"
#include "sigsafe.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static uint64_t ms_between(uint64_t a, uint64_t b) { return a && b && b >= a ? (b - a) / 1000000ull : 0; }

// The fields both the record and the report carry.
static void write_fields(fl_json *w, const fl_launch_times *t) {
    fl_json_string(w, "exec_time_from", t->from_exec ? "faultline_exec" : "process_start");
    if (t->main_ns) {
        fl_json_uint(w, "exec_to_main_ms", ms_between(t->exec_ns, t->main_ns));
        fl_json_uint(w, "loading_ms", ms_between(t->exec_ns, t->constructor_ns));
        fl_json_uint(w, "constructors_ms", ms_between(t->constructor_ns, t->main_ns));
    }
    if (t->ready_by) {
        fl_json_string(w, "ready_by", t->ready_by);
        if (t->main_ns) fl_json_uint(w, "main_to_ready_ms", ms_between(t->main_ns, t->ready_ns));
        fl_json_uint(w, "exec_to_ready_ms", ms_between(t->exec_ns, t->ready_ns));
    }
    fl_json_bool(w, "ready", t->ready_by != 0);
    // The part that took longest, for a reader and a scenario to name.
    uint64_t loading = ms_between(t->exec_ns, t->constructor_ns), ctors = ms_between(t->constructor_ns, t->main_ns);
    uint64_t to_ready = t->ready_by ? ms_between(t->main_ns, t->ready_ns) : 0;
    if (t->main_ns)
        fl_json_string(w, "longest", to_ready > loading && to_ready > ctors ? "main_to_ready" : ctors > loading ? "constructors" : "loading");
}

static void write_record(const fl_launch_times *t) {
    char buf[1024];
    fl_json w;
    fl_json_init(&w, buf, sizeof buf);
    fl_json_begin_object(&w, 0);
    fl_json_int(&w, "pid", getpid());
    write_fields(&w, t);
    fl_json_end_object(&w);
    if (w.overflowed) return;
    char name[64], tmp[72];
    snprintf(name, sizeof name, ".launch-%d.json", (int)getpid());
    snprintf(tmp, sizeof tmp, "%s.tmp", name);
    fl_fs_turn turn;
    fl_report_ids_take(&turn);
    int dir = fl_report_dir();
    if (dir >= 0) {
        int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0) {
            int ok = fl_write_all(fd, buf, w.len) == 0;
            close(fd);
            if (!ok || renameat(dir, tmp, dir, name) != 0) unlinkat(dir, tmp, 0);
        }
        fl_report_dir_done(dir);
    }
    fl_report_ids_give(&turn);
}

static void write_report(const fl_launch_times *t, uint64_t total_ms) {
    static char buf[16384];
    static fl_detector_report out = FL_DETECTOR_REPORT_OVER(buf);
    fl_report r;
    fl_detector_report_begin(&out, &r, "launch");
    fl_json *w = &r.json;
    fl_json_begin_object(w, "launch");
    fl_json_uint(w, "threshold_ms", t->threshold_ms);
    fl_json_uint(w, "duration_ms", total_ms);
    write_fields(w, t);
    fl_json_end_object(w);
    fl_detector_report_end(&out, &r, 0);  // no images, no capture time: a launch has no stack
}

void fl_launch_write(const fl_launch_times *t) {
    if (!t->exec_ns) return;
    if (t->from_exec) write_record(t);
    uint64_t total = t->ready_by ? ms_between(t->exec_ns, t->ready_ns) : ms_between(t->exec_ns, t->main_ns);
    if (t->threshold_ms && total > t->threshold_ms) write_report(t, total);
}
