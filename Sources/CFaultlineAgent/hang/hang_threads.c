#include "hang_threads.h"
#include "deadlock_futex.h"
#include "report_file.h"
#include "sigsafe.h"
#include "solo_call.h"
#include "thread_capture.h"

static void write_edge(fl_json *w, const fl_wait_edge *e) {
    if (e->kind == FL_EDGE_NONE) return;
    fl_json_begin_object(w, "waits_for");
    fl_json_string(w, "kind", fl_edge_kind_name(e->kind));
    fl_json_hex(w, "address", e->addr);
    if (e->mutex_type >= 0) fl_json_string(w, "mutex_type", fl_mutex_type_name(e->mutex_type));
    if (e->owner > 0) {
        char name[64];
        fl_json_int(w, "owner_tid", e->owner);
        if (e->owner_alive && fl_thread_name(e->owner, name, sizeof name) > 0) fl_json_string(w, "owner_name", name);
        fl_json_bool(w, "owner_alive", e->owner_alive);
    }
    fl_json_bool(w, "timed", e->timed);
    fl_json_end_object(w);
}

void fl_hang_write_activity(fl_json *w, const fl_thread_probe *p) {
    fl_wait_kind k = fl_probe_classify(p);
    fl_json_string(w, "state", fl_wait_kind_name(k));
    if (!p->running && p->nr >= 0) {
        const char *name = fl_syscall_name(p->nr);
        if (name) fl_json_string(w, "syscall", name);
        fl_json_int(w, "syscall_nr", p->nr);
    }
    if (k == FL_WAIT_FUTEX) {
        fl_wait_edge e;
        fl_futex_edge(p, &e);
        write_edge(w, &e);
    }
}

void fl_hang_write_threads(fl_json *w, pid_t skip_tid, const fl_image_list *images, int max_frames,
                           int max_threads, uint64_t timeout_ns) {
    static pid_t tids[1024];
    static uintptr_t pcs[FL_MAX_FRAMES];
    if (max_threads > 1024) max_threads = 1024;
    int total = 0;
    int n = fl_threads_list(tids, max_threads, &total);
    int sig = fl_threads_signal();
    uint64_t until = fl_threads_deadline(n, timeout_ns);  // one for the whole list, as in crash reports
    fl_json_begin_array(w, "threads");
    for (int i = 0; i < n; i++) {
        if (tids[i] == skip_tid) continue;
        char name[64];
        fl_json_begin_object(w, 0);
        fl_json_int(w, "tid", tids[i]);
        int named = fl_thread_name(tids[i], name, sizeof name) > 0;
        if (named) fl_json_string(w, "name", name);
        // Faultline's own threads are listed, not sampled, as in crash
        // reports (agent_threads.c): their stacks are not the program's.
        int agent = fl_solo_thread_is_faultlines(tids[i]);
        if (agent) fl_json_bool(w, "agent", 1);
        fl_thread_probe p;
        int probed = fl_probe_thread(tids[i], &p) == 0;
        if (probed) fl_hang_write_activity(w, &p);
        // The process goes on after a hang report: a sleeping thread is not
        // woken (its sleep would end early), nor one that blocks the signal
        // (it would only cost a timeout).
        const char *skip = 0;
        if (agent || !probed) {}
        else if (fl_probe_classify(&p) == FL_WAIT_SLEEP) skip = "sleeping";
        else if (fl_sigblk_blocks_lastingly(p.sigblk, sig)) skip = "signal_blocked";  // glibc's start-up mask lifts
        else if (fl_monotonic_ns() >= until) skip = "deadline_passed";
        int by_fp = 0;
        int k = skip || agent ? -1 : fl_capture_thread_until(tids[i], pcs, max_frames, timeout_ns, until, 0, &by_fp);
        if (k < 0 && !skip && !agent && fl_monotonic_ns() >= until) skip = "deadline_passed";  // its wait cut short
        fl_json_bool(w, "captured", k >= 0);
        if (skip) fl_json_string(w, "capture_skipped", skip);
        fl_report_thread_unwinder(w, k >= 0 && by_fp);
        fl_report_frames(w, "frames", pcs, k > 0 ? k : 0, FL_FRAME0_INTERRUPTED, images);
        fl_json_end_object(w);
    }
    fl_json_end_array(w);
    if (total > n) fl_json_int(w, "threads_omitted", total - n);
}
