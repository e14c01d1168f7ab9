#include "agent_threads.h"
#include "report_file.h"
#include "sigsafe.h"
#include "solo_call.h"
#include "thread_capture.h"

#include <unistd.h>

void fl_report_other_threads(fl_json *w, pid_t skip_tid, const fl_image_list *images,
                             int max_frames, int max_threads, uint64_t timeout_ns, int want_fp) {
    // On the caller's stack (an alternate signal stack has room), so two
    // detectors writing at once never share these.
    pid_t tids[1024];
    uintptr_t pcs[FL_MAX_FRAMES];
    if (max_threads > 1024) max_threads = 1024;
    int total = 0;
    int n = fl_threads_list(tids, max_threads, &total);
    // One deadline for the whole list: each thread may be waited for up to
    // 1 s past its timeout while it is runnable, and 64 threads spinning on
    // 2 cores held a crash report 5-8 s (docs/agent.md).
    uint64_t until = fl_threads_deadline(n, timeout_ns);
    fl_json_begin_array(w, "threads");
    for (int i = 0; i < n; i++) {
        if (tids[i] == skip_tid) continue;
        char name[64];
        fl_json_begin_object(w, 0);
        fl_json_int(w, "tid", tids[i]);
        fl_json_bool(w, "main", tids[i] == getpid());
        if (fl_thread_name(tids[i], name, sizeof name) > 0) fl_json_string(w, "name", name);
        // Faultline's own threads (stderr drain, watchdog, memory monitor,
        // the shim's leak helper) block signals on purpose; asking them would
        // only cost a timeout. Known by id: one may not have named itself yet.
        if (fl_solo_thread_is_faultlines(tids[i])) {
            fl_json_bool(w, "agent", 1);
            fl_json_bool(w, "captured", 0);
            fl_report_frames(w, "frames", pcs, 0, FL_FRAME0_INTERRUPTED, images);
            fl_json_end_object(w);
            continue;
        }
        // A thread that blocks the sample signal for good (libdispatch
        // workers) is asked anyway, but briefly. glibc's mask in a thread
        // starting up or around clone (every signal, its own too) lifts by
        // itself and the answer follows: such a thread is asked as any other.
        int blocked = fl_thread_blocks_signal_lastingly(tids[i], fl_threads_signal());
        uint64_t wait_ns = blocked && timeout_ns > 10000000ull ? 10000000ull : timeout_ns;
        int by_fp = 0, k = -1;
        if (fl_monotonic_ns() < until)
            k = fl_capture_thread_until(tids[i], pcs, max_frames, wait_ns, until, want_fp, &by_fp);
        // Not asked, or its wait cut short, at the deadline.
        if (k < 0 && fl_monotonic_ns() >= until)
            fl_json_string(w, "capture_skipped", "the thread list's deadline passed");
        else if (k < 0 && blocked) fl_json_string(w, "capture_skipped", "blocks the sample signal");
        fl_json_bool(w, "captured", k >= 0);
        // With want_fp every stack is by frame pointers, as capture.unwinder says.
        fl_report_thread_unwinder(w, k >= 0 && by_fp && !want_fp);
        fl_report_frames(w, "frames", pcs, k > 0 ? k : 0, FL_FRAME0_INTERRUPTED, images);
        fl_json_end_object(w);
    }
    fl_json_end_array(w);
    // Past FAULTLINE_MAX_THREADS: say so, or the list reads as complete.
    if (total > n) fl_json_int(w, "threads_omitted", total - n);
}
