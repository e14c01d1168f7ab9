#include "hang_threads.h"
#include "report_file.h"
#include "sigsafe.h"
#include "thread_capture.h"

int fl_thread_blocks_signal(pid_t tid, int sig) {
    char path[64], buf[2048];
    size_t l = fl_strlcpy(path, "/proc/self/task/", sizeof path);
    l += fl_fmt_u64(path + l, (uint64_t)tid);
    fl_strlcpy(path + l, "/status", sizeof path - l);
    if (fl_read_file(path, buf, sizeof buf) <= 0 || sig < 1 || sig > 64) return 0;
    static const char key[] = "\nSigBlk:";
    for (const char *s = buf; *s; s++) {
        int match = 1;
        for (size_t i = 0; i < sizeof key - 1; i++) if (s[i] != key[i]) { match = 0; break; }
        if (!match) continue;
        s += sizeof key - 1;
        while (*s == ' ' || *s == '\t') s++;
        return (int)((fl_parse_hex(s, 0) >> (sig - 1)) & 1);
    }
    return 0;
}

void fl_hang_write_threads(fl_json *w, pid_t skip_tid, const fl_image_list *images, int max_frames,
                           int max_threads, uint64_t timeout_ns) {
    static pid_t tids[1024];
    static uintptr_t pcs[FL_MAX_FRAMES];
    if (max_threads > 1024) max_threads = 1024;
    int n = fl_threads_list(tids, max_threads);
    int sig = fl_threads_signal();
    fl_json_begin_array(w, "threads");
    for (int i = 0; i < n; i++) {
        if (tids[i] == skip_tid) continue;
        char name[64];
        fl_json_begin_object(w, 0);
        fl_json_int(w, "tid", tids[i]);
        if (fl_thread_name(tids[i], name, sizeof name) > 0) fl_json_string(w, "name", name);
        int blocked = fl_thread_blocks_signal(tids[i], sig);
        int k = blocked ? -1 : fl_capture_thread(tids[i], pcs, max_frames, timeout_ns);
        fl_json_bool(w, "captured", k >= 0);
        if (blocked) fl_json_bool(w, "signal_blocked", 1);
        fl_report_frames(w, "frames", pcs, k > 0 ? k : 0, images);
        fl_json_end_object(w);
    }
    fl_json_end_array(w);
}
