#include "tool_log.h"
#include "hang_report.h"
#include "agent_config.h"
#include "hang_threads.h"
#include "report_file.h"
#include "sigsafe.h"
#include "stderr_capture.h"
#include "thread_capture.h"

#include <sys/mman.h>
#include <unistd.h>

/// Same size as the crash report buffer: every thread's stack and the
/// images fit with room to spare; mapped lazily (MAP_NORESERVE).
#define FL_HANG_REPORT_BUF (8u << 20)

static char *g_buf;
static fl_image_list *g_images;
static uintptr_t g_pcs[FL_MAX_FRAMES];
/// 1 when the last `capture` was answered by frame pointers.
static int g_by_fp;

int fl_hang_report_init(void) {
    if (g_buf) return 0;
    g_buf = mmap(0, FL_HANG_REPORT_BUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    g_images = mmap(0, sizeof *g_images, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (g_buf == MAP_FAILED || g_images == MAP_FAILED) { g_buf = 0; return -1; }
    return 0;
}

static uint64_t ms(uint64_t ns) { return ns / 1000000ull; }

/// One thread's stack by directed signal, or -1 at once when the thread
/// blocks the sample signal for good (waiting for it would only delay the
/// report; glibc's start-up mask lifts by itself, so that thread is asked).
static int capture(pid_t tid, int max_frames) {
    g_by_fp = 0;
    if (fl_thread_blocks_signal_lastingly(tid, fl_threads_signal())) return -1;
    return fl_capture_thread_by(tid, g_pcs, max_frames, (uint64_t)fl_agent_config.thread_timeout_ms * 1000000ull, 0, &g_by_fp);
}

static void notify(const char *prefix, const char *name, const char *suffix) {
    char line[384];
    size_t n = fl_strlcpy(line, prefix, sizeof line);
    n += fl_strlcpy(line + n, name, sizeof line - n);
    n += fl_strlcpy(line + n, suffix, sizeof line - n);
    if (n < sizeof line - 1) line[n++] = '\n';
    fl_log_write(line, n);
}

static void write_thread_head(fl_json *w, pid_t tid) {
    char name[64];
    fl_json_int(w, "tid", tid);
    if (fl_thread_name(tid, name, sizeof name) > 0) fl_json_string(w, "name", name);
    fl_json_bool(w, "main", tid == getpid());
}

static void write_common_hang_fields(fl_json *w, const fl_hang_episode *ep, uint64_t now) {
    fl_json_string(w, "mode", ep->mode);
    fl_json_uint(w, "threshold_ms", ms(ep->opts.threshold_ns));
    fl_json_uint(w, "sample_interval_ms", ms(ep->opts.sample_ns));
    uint64_t unix_now = fl_realtime_ns(), mono_now = fl_monotonic_ns();
    fl_json_uint(w, "started_unix_ms", (unix_now - (mono_now - ep->start_ns)) / 1000000ull);
    if (ep->first_seen_ns >= ep->start_ns)
        fl_json_uint(w, "first_seen_unix_ms", (unix_now - (mono_now - ep->first_seen_ns)) / 1000000ull);
    fl_json_uint(w, "duration_ms", ms(now - ep->start_ns));
    // Whole seconds, rounded: what a person says ("a 3 s hang") and what a
    // scenario can compare exactly.
    fl_json_uint(w, "duration_s", (ms(now - ep->start_ns) + 500) / 1000);
    if (ep->have_probe && ep->probe.cpu_ns >= ep->cpu_start_ns && ep->cpu_start_ns)
        fl_json_uint(w, "cpu_ms", ms(ep->probe.cpu_ns - ep->cpu_start_ns));
}

static void write_samples(fl_json *w, const fl_hang_episode *ep, const fl_hang_sample *culprit, int culprit_count) {
    const fl_sample_ring *r = ep->ring;
    int reused = 0;
    for (int i = 0; i < r->count; i++) reused += r->slots[i].reused;
    fl_json_begin_object(w, "samples");
    fl_json_int(w, "kept", r->count);
    fl_json_int(w, "with_stack", fl_sample_ring_known(r));
    fl_json_int(w, "reused", reused);
    fl_json_uint(w, "total", r->total);
    int by_fp = fl_sample_ring_by_fp(r);
    if (by_fp) fl_json_int(w, "by_frame_pointer", by_fp);
    fl_json_int(w, "by_libunwind", fl_sample_ring_known(r) - by_fp);
    fl_json_end_object(w);
    if (culprit) {
        fl_json_begin_object(w, "culprit");
        fl_json_int(w, "count", culprit_count);
        fl_json_int(w, "of", fl_sample_ring_known(r));
        fl_json_end_object(w);
    }
    fl_sample_ring_write_tree(r, w, g_images);
}

/// "crashed_thread": the watched thread with the culprit stack, or (no
/// sample had a stack) the stack taken now.
static void write_culprit_thread(fl_json *w, const fl_hang_episode *ep, const fl_hang_sample *culprit) {
    fl_json_begin_object(w, "crashed_thread");
    write_thread_head(w, ep->tid);
    if (culprit) {
        fl_json_string(w, "stack", "culprit");
        fl_report_thread_unwinder(w, culprit->by_fp);
        fl_report_frames(w, "frames", culprit->pcs, culprit->n, FL_FRAME0_INTERRUPTED, g_images);
    } else {
        int n = capture(ep->tid, fl_agent_config.max_frames);
        fl_json_string(w, "stack", "current");
        fl_json_bool(w, "captured", n >= 0);
        fl_report_thread_unwinder(w, g_by_fp);
        fl_report_frames(w, "frames", g_pcs, n > 0 ? n : 0, FL_FRAME0_INTERRUPTED, g_images);
    }
    fl_json_end_object(w);
}

static void write_tail(fl_json *w, uint64_t t0, int with_threads) {
    if (with_threads)
        fl_hang_write_threads(w, fl_gettid(), g_images, fl_agent_config.max_frames, fl_agent_config.max_threads,
                              (uint64_t)fl_agent_config.thread_timeout_ms * 1000000ull);
    fl_report_images(w, g_images);
    static char tail[FL_STDERR_TAIL];
    if (with_threads) fl_stderr_write_tail(w, tail, sizeof tail);
    fl_report_capture(w, t0);
}

static int commit(fl_report *r) {
    char name[128];
    // On failure fl_report_commit says why and prints the report to stderr.
    if (fl_report_commit(r, name, sizeof name) != 0) return -1;
    notify("faultline: report written: ", name, "");
    return 0;
}

/// Takes the stack of pending samples (the thread was in a call a signal
/// would have cut short; now that the hang is reported, take it once).
static void resolve_pending(fl_hang_episode *ep) {
    int pending = 0;
    for (int i = 0; i < ep->ring->count; i++) pending += ep->ring->slots[i].pending;
    if (!pending) return;
    int n = capture(ep->tid, ep->ring->max_frames);
    fl_sample_ring_resolve(ep->ring, g_pcs, n, g_by_fp);
}

// Starts a hang or hang_recovered report: the culprit thread, then the
// "hang" object (left open) with the fields both kinds carry. `count` and
// the returned culprit are for write_samples.
static fl_json *begin_hang(fl_report *r, const char *kind, fl_hang_episode *ep, uint64_t until_ns, int recovered,
                           const fl_hang_sample **culprit, int *count) {
    *count = 0;
    *culprit = fl_sample_ring_culprit(ep->ring, count);
    fl_report_begin(r, g_buf, FL_HANG_REPORT_BUF, kind);
    fl_json *w = &r->json;
    write_culprit_thread(w, ep, *culprit);
    fl_json_begin_object(w, "hang");
    write_common_hang_fields(w, ep, until_ns);
    fl_json_bool(w, "recovered", recovered);
    return w;
}

int fl_hang_report_hang(fl_hang_episode *ep, uint64_t *detection_ns) {
    uint64_t t0 = fl_monotonic_ns();
    fl_images_load(g_images);
    resolve_pending(ep);
    fl_report r;
    const fl_hang_sample *culprit;
    int count;
    fl_json *w = begin_hang(&r, "hang", ep, t0, 0, &culprit, &count);
    if (ep->have_probe) {
        fl_json_begin_object(w, "thread");
        fl_hang_write_activity(w, &ep->probe);
        fl_json_end_object(w);
    }
    write_samples(w, ep, culprit, count);
    fl_json_end_object(w);
    write_tail(w, t0, 1);
    fl_strlcpy(ep->hang_report_id, r.id, sizeof ep->hang_report_id);
    // Last, so it covers the whole capture: first seen unresponsive ->
    // report complete.
    uint64_t det = fl_monotonic_ns() - ep->first_seen_ns;
    fl_json_uint(w, "detection_ms", ms(det));
    if (detection_ns) *detection_ns = det;
    return commit(&r);
}

int fl_hang_report_recovered(fl_hang_episode *ep, uint64_t end_ns, const char *ended_by) {
    uint64_t t0 = fl_monotonic_ns();
    fl_images_load(g_images);
    fl_report r;
    const fl_hang_sample *culprit;
    int count;
    fl_json *w = begin_hang(&r, "hang_recovered", ep, end_ns, 1, &culprit, &count);
    fl_json_string(w, "ended_by", ended_by);
    if (ep->hang_report_id[0]) fl_json_string(w, "hang_report_id", ep->hang_report_id);
    write_samples(w, ep, culprit, count);
    fl_json_end_object(w);
    write_tail(w, t0, 0);
    return commit(&r);
}

static void write_link(fl_json *w, const fl_chain_link *l) {
    fl_json_begin_object(w, 0);
    write_thread_head(w, l->probe.tid);
    fl_hang_write_activity(w, &l->probe);
    int n = capture(l->probe.tid, fl_agent_config.max_frames);
    fl_json_bool(w, "captured", n >= 0);
    fl_report_thread_unwinder(w, g_by_fp);
    fl_report_frames(w, "frames", g_pcs, n > 0 ? n : 0, FL_FRAME0_INTERRUPTED, g_images);
    fl_json_end_object(w);
}

int fl_hang_report_deadlock(fl_hang_episode *ep, const fl_wait_chain *chain, const char *cause,
                            uint64_t blocked_since_ns, const char *action, uint64_t *detection_ns) {
    uint64_t t0 = fl_monotonic_ns();
    fl_images_load(g_images);
    fl_report r;
    fl_report_begin(&r, g_buf, FL_HANG_REPORT_BUF, "deadlock");
    fl_json *w = &r.json;
    fl_json_begin_object(w, "crashed_thread");
    write_thread_head(w, ep->tid);
    int n = capture(ep->tid, fl_agent_config.max_frames);
    fl_json_string(w, "stack", "current");
    fl_json_bool(w, "captured", n >= 0);
    fl_report_thread_unwinder(w, g_by_fp);
    fl_report_frames(w, "frames", g_pcs, n > 0 ? n : 0, FL_FRAME0_INTERRUPTED, g_images);
    fl_json_end_object(w);

    fl_json_begin_object(w, "deadlock");
    fl_json_string(w, "cause", cause);
    fl_json_string(w, "mode", ep->mode);
    fl_json_uint(w, "blocked_ms", ms(t0 - blocked_since_ns));
    fl_json_uint(w, "hang_ms", ms(t0 - ep->start_ns));
    fl_json_uint(w, "threshold_ms", ms(ep->opts.deadlock_ns));
    fl_json_string(w, "action", action);
    if (ep->hang_report_id[0]) fl_json_string(w, "hang_report_id", ep->hang_report_id);
    int cycle_start = chain->cycle_start >= 0 ? chain->cycle_start : chain->count;
    // Threads from the watched one up to the cycle (or to the end of the
    // chain when there is none), then the cycle itself.
    fl_json_begin_array(w, "chain");
    for (int i = 0; i < cycle_start; i++) write_link(w, &chain->links[i]);
    fl_json_end_array(w);
    fl_json_begin_array(w, "cycle");
    for (int i = cycle_start; i < chain->count; i++) write_link(w, &chain->links[i]);
    fl_json_end_array(w);
    fl_json_end_object(w);
    write_tail(w, t0, 1);
    uint64_t det = fl_monotonic_ns() - ep->first_seen_ns;
    fl_json_uint(w, "detection_ms", ms(det));
    if (detection_ns) *detection_ns = det;
    return commit(&r);
}
