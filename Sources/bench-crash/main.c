// bench-crash: what crash capture costs. Prints, never asserts.
//   1. fault -> report closed, for a crash 30 frames deep (target: median
//      <= 5 ms). Each run forks a child that faults; the agent is linked in.
//   2. capturing one other thread's stack by directed signal (target:
//      median <= 20 us).
//
//   bench-crash [RUNS] [--runs N] [--config agent|none] [--json]
//
// --config none measures the baseline: the same fault without the agent
// (fault -> process reaped only). --json prints one JSON line per
// measurement (docs/benchmarks.md, "The contract") instead of the table.
#include "bench_stats.h"
#include "faultline.h"
#include "../CFaultlineAgent/threads/thread_capture.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/// Prints median and spread; `target_us` <= 0 means "for information".
static void print_stats(const char *what, uint64_t *v, int n, double target_us) {
    bench_stats st = bench_stats_of(v, n);
    printf("%-46s median %9.1f us   p10 %9.1f   p90 %9.1f   (n=%d", what, st.median / 1e3, st.p10 / 1e3, st.p90 / 1e3, n);
    if (target_us > 0) printf(", target <= %.0f us)%s\n", target_us, st.median / 1e3 <= target_us ? "" : "  ** over target **");
    else printf(")\n");
}

/// --json: JSON lines instead of the table.
static int g_json;
/// --config: "agent" or "none".
static const char *g_config = "agent";

/// One JSON line: metric, config, unit and the samples (ns scaled to us).
static void emit_json(const char *metric, uint64_t *v, int n) {
    printf("{\"metric\":\"%s\",\"config\":\"%s\",\"unit\":\"us\",\"samples\":[", metric, g_config);
    for (int i = 0; i < n; i++) printf("%s%.3f", i ? "," : "", v[i] / 1e3);
    printf("]}\n");
    fflush(stdout);
}

static volatile uint64_t *g_fault_time;
static int *volatile g_null;

__attribute__((noinline)) static int descend(int depth) {
    if (depth == 0) {
        *g_fault_time = bench_now_ns(CLOCK_MONOTONIC);
        *g_null = 1;
        return 0;
    }
    return descend(depth - 1) + 1;
}

static void *idle(void *arg) { for (;;) pause(); return arg; }

static void clear_dir(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d) closedir(d);
}

static void bench_fault_to_report(const char *dir, int runs, int threads) {
    uint64_t *total = calloc((size_t)runs, sizeof(uint64_t));
    uint64_t *closed = calloc((size_t)runs, sizeof(uint64_t));
    // The report is closed when the agent renames it into place.
    int in = inotify_init1(IN_CLOEXEC);
    inotify_add_watch(in, dir, IN_MOVED_TO);
    int nclosed = 0, missing = 0;
    g_fault_time = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int ok = 0;
    for (int i = 0; i < runs; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            struct rlimit no_core = {0, 0};  // a core dump would be timed too
            setrlimit(RLIMIT_CORE, &no_core);
            for (int t = 0; t < threads; t++) { pthread_t th; pthread_create(&th, 0, idle, 0); }
            if (threads) usleep(2000);
            int devnull = open("/dev/null", 1);
            dup2(devnull, 2);  // the agent's "report written" line
            descend(28);       // + descend's caller frames = ~30 frames
            _exit(0);
        }
        char ev[4096];
        // Without the agent no report is written: nothing to wait for. With
        // it, a report that never comes is counted, not waited for forever.
        if (!strcmp(g_config, "agent")) {
            struct pollfd pfd = {in, POLLIN, 0};
            if (poll(&pfd, 1, 5000) == 1 && read(in, ev, sizeof ev) > 0) closed[nclosed++] = bench_now_ns(CLOCK_MONOTONIC) - *g_fault_time;
            else {
                missing++;
                kill(pid, SIGKILL);  // a crash handler stuck for 5 s would block waitpid
            }
        }
        int status;
        waitpid(pid, &status, 0);
        uint64_t end = bench_now_ns(CLOCK_MONOTONIC);
        if (WIFSIGNALED(status) && WTERMSIG(status) == 11) total[ok++] = end - *g_fault_time;
    }
    if (g_json) {
        char metric[64];
        snprintf(metric, sizeof metric, "crash.fault_to_report_%dthreads", threads);
        if (nclosed) emit_json(metric, closed, nclosed);
        snprintf(metric, sizeof metric, "crash.fault_to_reaped_%dthreads", threads);
        if (ok) emit_json(metric, total, ok);
        if (!strcmp(g_config, "agent")) {
            // Faults whose report was not committed within 5 s.
            printf("{\"metric\":\"crash.reports_missing_%dthreads\",\"config\":\"agent\",\"unit\":\"faults\",\"value\":%d}\n", threads, missing);
            fflush(stdout);
        }
        clear_dir(dir);
        close(in);
        free(total);
        free(closed);
        return;
    }
    char what[96];
    snprintf(what, sizeof what, "fault -> report closed, 30 frames, %d other thr", threads);
    if (nclosed) print_stats(what, closed, nclosed, 5000);
    snprintf(what, sizeof what, "fault -> process reaped (incl. exit), %d thr", threads);
    if (ok) print_stats(what, total, ok, 0);
    if (missing) printf("%d of %d faults gave no committed report within 5 s\n", missing, runs);
    clear_dir(dir);
    close(in);
    free(total);
    free(closed);
}

static pthread_barrier_t g_ready;

__attribute__((noinline)) static void deep_wait(int depth) {
    if (depth == 0) { pthread_barrier_wait(&g_ready); for (;;) pause(); }
    deep_wait(depth - 1);
    __asm__ volatile("" ::: "memory");
}

static void *deep_thread(void *arg) { deep_wait(28); return arg; }

static void bench_thread_capture(int runs) {
    pthread_t t;
    pthread_barrier_init(&g_ready, 0, 2);
    pid_t tids[64];
    int before = fl_threads_list(tids, 64, 0);
    pthread_create(&t, 0, deep_thread, 0);
    pthread_barrier_wait(&g_ready);
    usleep(1000);
    int n = fl_threads_list(tids, 64, 0);
    pid_t target = n > before ? tids[n - 1] : tids[0];
    uint64_t *v = calloc((size_t)runs, sizeof(uint64_t));
    uintptr_t pcs[256];
    int frames = 0, ok = 0;
    for (int i = 0; i < runs; i++) {
        uint64_t t0 = bench_now_ns(CLOCK_MONOTONIC);
        int k = fl_capture_thread(target, pcs, 256, 100000000ull);
        uint64_t t1 = bench_now_ns(CLOCK_MONOTONIC);
        if (k > 0) { v[ok++] = t1 - t0; frames = k; }
    }
    if (g_json) { if (ok) emit_json("crash.capture_other_thread", v, ok); free(v); return; }
    char what[96];
    snprintf(what, sizeof what, "capture one other thread (%d frames)", frames);
    if (ok) print_stats(what, v, ok, 20);
    free(v);
}

int main(int argc, char **argv) {
    // SwiftPM links every executable with the Swift runtime, whose backtracer
    // would run after our handler (we chain to it) and dominate the timings.
    if (!getenv("SWIFT_BACKTRACE")) {
        setenv("SWIFT_BACKTRACE", "enable=no", 1);
        execv("/proc/self/exe", argv);
    }
    int runs = 50;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) g_json = 1;
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--config") && i + 1 < argc) g_config = argv[++i];
        else if (argv[i][0] >= '0' && argv[i][0] <= '9') runs = atoi(argv[i]);
        else {
            fprintf(stderr, "bench-crash: unknown argument '%s'\nusage: bench-crash [RUNS] [--runs N] [--config agent|none] [--json]\n", argv[i]);
            return 2;
        }
    }
    int agent = !strcmp(g_config, "agent");
    if (!agent && strcmp(g_config, "none")) { fprintf(stderr, "bench-crash: --config %s is not agent or none\n", g_config); return 2; }
    if (runs < 1) { fprintf(stderr, "bench-crash: runs must be at least 1\n"); return 2; }
    char dir[] = "/tmp/faultline-bench-crash-XXXXXX";
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
    faultline_options o = {0};
    o.report_dir = dir;
    if (agent && faultline_install(&o) != 0) { fprintf(stderr, "install failed: %s\n", faultline_last_error()); return 1; }
    if (!g_json) printf("bench-crash (%d runs each, %s)\n", runs, agent ? "agent installed" : "no agent: baseline");
    bench_fault_to_report(dir, runs, 0);
    bench_fault_to_report(dir, runs, 4);
    if (agent) bench_thread_capture(runs * 20);
    rmdir(dir);
    return 0;
}
