// bench-hang: what the hang detector costs and how fast it reports. Prints,
// never asserts. Every measurement runs in a forked child with its own
// agent install (the options are read at install).
//   1. one main-thread stack sample by directed signal (target: median
//      <= 20 us), measured directly, beside its floor: the same signal
//      answered by a handler that does nothing;
//   2. the watchdog's CPU with the main thread idle and busy (target: under
//      1% of one core at a 50 ms interval), per mode;
//   3. detection latency over N runs (default 20): from the moment the main
//      thread starts spinning to the hang report being committed, and the
//      report's own detection_ms;
//   4. the cost of one faultline_heartbeat() call.
// Ping mode uses the toolchain's libdispatch (loaded with dlopen): the
// pinger posts to the main queue and the program runs dispatch_main().
// Usage: bench-hang [--runs N] [--threshold-ms MS] [--seconds S] [--only sample|cpu|latency|heartbeat] [--json]
// --json prints one JSON line per measurement (docs/benchmarks.md, "The
// contract") for the sample and cpu sections instead of the tables.
#include "bench_stats.h"
#include "faultline.h"
#include "faultline_hang.h"
#include "../CFaultlineAgent/threads/thread_capture.h"

#include <dlfcn.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/// Prints median, p10, p90 and max of `v` (ns) in `unit_ns` units.
static void print_stats(const char *what, uint64_t *v, int n, double unit_ns, const char *unit, const char *target) {
    if (n <= 0) { printf("%-52s no data\n", what); return; }
    bench_stats st = bench_stats_of(v, n);
    printf("%-52s median %9.2f %s  p10 %9.2f  p90 %9.2f  max %9.2f  (n=%d)%s%s\n", what, st.median / unit_ns, unit,
           st.p10 / unit_ns, st.p90 / unit_ns, st.max / unit_ns, n, target ? "  " : "", target ? target : "");
}

static char g_dir[] = "/tmp/bench-hang-XXXXXX";

/// --json: JSON lines instead of the tables.
static int g_json;

/// One JSON line of samples (ns divided by `unit_ns`).
static void emit_samples(const char *metric, const char *config, const char *unit, uint64_t *v, int n, double unit_ns) {
    if (n <= 0) return;
    printf("{\"metric\":\"%s\",\"config\":\"%s\",\"unit\":\"%s\",\"samples\":[", metric, config, unit);
    for (int i = 0; i < n; i++) printf("%s%.3f", i ? "," : "", v[i] / unit_ns);
    printf("]}\n");
}

static void install(const char *detectors) {
    setenv("FAULTLINE_DETECTORS", detectors, 1);
    faultline_options o;
    memset(&o, 0, sizeof o);
    o.report_dir = g_dir;
    if (faultline_install(&o) != 0) {
        fprintf(stderr, "bench-hang: agent not installed: %s\n", faultline_last_error());
        exit(2);
    }
}

static void set_threshold(int ms) {
    faultline_hang_options h;
    memset(&h, 0, sizeof h);
    h.threshold_ms = ms;
    h.deadlock_threshold_ms = -1;
    if (faultline_hang_configure(&h) != 0) {
        fprintf(stderr, "bench-hang: %s\n", faultline_hang_last_error());
        exit(2);
    }
}

/// Shared with the forked children: results come back through here.
struct shared {
    uint64_t values[4096];
    uint64_t values2[4096];
    int count;
    double figures[8];
    uint64_t counters[8];
};
static struct shared *g_out;

static void run_child(void (*body)(void)) {
    pid_t pid = fork();
    if (pid == 0) { body(); _exit(0); }
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fprintf(stderr, "bench-hang: a measurement child failed (status %d)\n", status);
}

// --- 1. one sample -----------------------------------------------------------------

static volatile int g_stop;
static volatile uint64_t g_sink;
static pid_t g_main_tid;

/// A main thread 30 frames deep, burning the CPU, like a hung main thread.
__attribute__((noinline)) static void spin_deep(int depth) {
    if (depth > 0) { spin_deep(depth - 1); g_sink++; return; }
    uint64_t x = 1;
    while (!g_stop) for (int i = 0; i < 1000; i++) x = x * 6364136223846793005ull + 1;
    g_sink = x;
}

// --- the floor: the same request and answer with nothing in the handler -----------------
// A signal to another thread and the wait for its answer cost something
// whatever the handler does: on a VM, waking a blocked thread's idle vCPU
// alone takes 10-15 us. The floor rows measure that round trip with a
// handler that only answers, so the sample rows read as "floor + unwinding".

/// Set in the child that measures the floor instead of a stack sample.
static int g_floor;
/// A signal the agent does not use (it takes SIGRTMIN+8 and up).
#define FLOOR_SIGNAL SIGUSR2
static _Atomic uint64_t g_floor_answer;

static void floor_handler(int sig, siginfo_t *info, void *uc) {
    (void)sig, (void)uc;
    atomic_store(&g_floor_answer, (uint64_t)info->si_value.sival_ptr);
}

static void install_floor_handler(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = floor_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;  // as the sample handler
    sigaction(FLOOR_SIGNAL, &sa, 0);
}

/// One request answered by floor_handler, waited for as fl_capture_thread
/// waits (yielding). Returns 1 (one "frame") when answered.
static int floor_round_trip(pid_t tid) {
    static uint64_t seq;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_uid = getuid();
    si.si_value.sival_ptr = (void *)(uintptr_t)++seq;
    if (syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, FLOOR_SIGNAL, &si) != 0) return -1;
    uint64_t deadline = bench_now_ns(CLOCK_MONOTONIC) + 50000000ull;
    while (atomic_load(&g_floor_answer) != seq)
        if (bench_now_ns(CLOCK_MONOTONIC) > deadline) return -1;
        else sched_yield();
    return 1;
}

/// A stack sample of `tid`, or the floor's empty round trip.
static int request_sample(pid_t tid, uintptr_t *pcs) {
    return g_floor ? floor_round_trip(tid) : fl_capture_thread(tid, pcs, 128, 50000000ull);
}

static void *sampler(void *arg) {
    uintptr_t pcs[FL_MAX_FRAMES];
    int n = 2000;
    usleep(20000);
    for (int i = 0; i < n; i++) {
        uint64_t t0 = bench_now_ns(CLOCK_MONOTONIC);
        int k = request_sample(g_main_tid, pcs);
        uint64_t dt = bench_now_ns(CLOCK_MONOTONIC) - t0;
        if (k > 0) g_out->values[g_out->count++ % 4096] = dt;
        if (i == 0) g_out->counters[0] = (uint64_t)k;
        usleep(500);
    }
    g_stop = 1;
    return arg;
}

/// The same against a main thread blocked in pthread_join: the CPU time the
/// sampled thread spends per sample (signal delivery, unwinding, return).
static pthread_t g_main_thread;

static void *blocked_sampler(void *arg) {
    uintptr_t pcs[FL_MAX_FRAMES];
    clockid_t cid;
    pthread_getcpuclockid(g_main_thread, &cid);
    usleep(20000);
    for (int i = 0; i < 2000; i++) {
        struct timespec a, b;
        clock_gettime(cid, &a);
        uint64_t t0 = bench_now_ns(CLOCK_MONOTONIC);
        int k = request_sample(g_main_tid, pcs);
        uint64_t dt = bench_now_ns(CLOCK_MONOTONIC) - t0;
        usleep(200);  // let it go back to sleep before reading its clock
        clock_gettime(cid, &b);
        if (k > 0) {
            g_out->values2[g_out->count % 4096] = dt;
            g_out->values[g_out->count++ % 4096] = (uint64_t)((b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec));
        }
        if (i == 0) g_out->counters[0] = (uint64_t)k;
    }
    return arg;
}

__attribute__((noinline)) static void join_deep(int depth, pthread_t t) {
    if (depth > 0) { join_deep(depth - 1, t); g_sink++; return; }
    pthread_join(t, 0);
}

static void measure_sample_blocked(void) {
    install("crash");
    if (g_floor) install_floor_handler();
    g_main_tid = (pid_t)syscall(SYS_gettid);
    g_main_thread = pthread_self();
    pthread_t t;
    pthread_create(&t, 0, blocked_sampler, 0);
    join_deep(30, t);
}

static void measure_sample_direct(void) {
    install("crash");  // no watchdog: only this bench samples
    if (g_floor) install_floor_handler();
    g_main_tid = (pid_t)syscall(SYS_gettid);
    pthread_t t;
    pthread_create(&t, 0, sampler, 0);
    spin_deep(30);
    pthread_join(t, 0);
}

// --- libdispatch, for ping mode ------------------------------------------------------

typedef void (*dispatch_fn)(void *);
static void (*p_async_f)(void *queue, void *ctx, dispatch_fn f);
static void (*p_after_f)(uint64_t when, void *queue, void *ctx, dispatch_fn f);
static uint64_t (*p_time)(uint64_t base, int64_t delta);
static void (*p_dispatch_main)(void);
static void *p_main_q;

static int load_dispatch(void) {
    void *h = dlopen("libdispatch.so", RTLD_NOW | RTLD_GLOBAL);
    if (!h) return -1;
    p_async_f = (void (*)(void *, void *, dispatch_fn))dlsym(h, "dispatch_async_f");
    p_after_f = (void (*)(uint64_t, void *, void *, dispatch_fn))dlsym(h, "dispatch_after_f");
    p_time = (uint64_t (*)(uint64_t, int64_t))dlsym(h, "dispatch_time");
    p_dispatch_main = (void (*)(void))dlsym(h, "dispatch_main");
    p_main_q = dlsym(h, "_dispatch_main_q");
    return p_async_f && p_after_f && p_time && p_dispatch_main && p_main_q ? 0 : -1;
}

static void pong(void *ctx) { (void)ctx; faultline_heartbeat(); }
static void ping_main_queue(void *ctx) { (void)ctx; p_async_f(p_main_q, 0, pong); }

/// Installs the pinger and runs the main queue (never returns); `first`
/// runs on the main queue after `after_ms`.
static void run_main_queue(dispatch_fn first, int after_ms) {
    if (load_dispatch() != 0) { fprintf(stderr, "bench-hang: libdispatch not found: %s\n", dlerror()); _exit(3); }
    if (faultline_hang_set_pinger(ping_main_queue, 0) != 0) { fprintf(stderr, "bench-hang: %s\n", faultline_hang_last_error()); _exit(3); }
    if (first) p_after_f(p_time(0, (int64_t)after_ms * 1000000), p_main_q, 0, first);
    p_dispatch_main();
}

// --- 2. watchdog CPU -------------------------------------------------------------------

static int g_seconds = 5;

static double watchdog_cpu_percent(void (*load)(uint64_t until), faultline_hang_stats *delta) {
    faultline_hang_stats a, b;
    faultline_hang_get_stats(&a);
    uint64_t t0 = bench_now_ns(CLOCK_MONOTONIC);
    load(t0 + (uint64_t)g_seconds * 1000000000ull);
    uint64_t wall = bench_now_ns(CLOCK_MONOTONIC) - t0;
    faultline_hang_get_stats(&b);
    delta->ticks = b.ticks - a.ticks;
    delta->probes = b.probes - a.probes;
    delta->probe_ns = b.probe_ns - a.probe_ns;
    delta->samples = b.samples - a.samples;
    delta->sample_ns = b.sample_ns - a.sample_ns;
    delta->samples_reused = b.samples_reused - a.samples_reused;
    delta->pings = b.pings - a.pings;
    delta->mode = b.mode;
    return 100.0 * (double)(b.watchdog_cpu_ns - a.watchdog_cpu_ns) / (double)wall;
}

/// Waits `ms` for events as an idle event loop does: in poll on an eventfd
/// nothing writes to (a poll on no descriptor is a sleep to inferred mode,
/// which then does not watch main).
static void idle_poll(int ms) {
    static int wakeup = -1;
    if (wakeup < 0) wakeup = eventfd(0, EFD_CLOEXEC);
    struct pollfd p = {.fd = wakeup, .events = POLLIN};
    poll(&p, 1, ms);
}

static void idle_load(uint64_t until) {
    while (bench_now_ns(CLOCK_MONOTONIC) < until) idle_poll(100);
}

static void heartbeat_idle_load(uint64_t until) {
    while (bench_now_ns(CLOCK_MONOTONIC) < until) { faultline_heartbeat(); idle_poll(10); }
}

static void busy_load(uint64_t until) {
    uint64_t x = 1;
    while (bench_now_ns(CLOCK_MONOTONIC) < until) for (int i = 0; i < 1000; i++) x = x * 6364136223846793005ull + 1;
    g_sink = x;
}

static void heartbeat_busy_load(uint64_t until) {
    // A loop that heartbeats once and then stays busy: a hang in heartbeat mode.
    faultline_heartbeat();
    busy_load(until);
}

static void record_cpu(int slot, void (*load)(uint64_t)) {
    faultline_hang_stats d;
    memset(&d, 0, sizeof d);
    g_out->figures[slot] = watchdog_cpu_percent(load, &d);
    g_out->counters[0] = d.ticks;
    g_out->counters[1] = d.probes;
    g_out->counters[2] = d.probes ? d.probe_ns / d.probes : 0;
    g_out->counters[3] = d.samples;
    g_out->counters[4] = d.samples ? d.sample_ns / d.samples : 0;
    g_out->counters[5] = d.samples_reused;
    g_out->counters[6] = (uint64_t)d.mode;
}

static void (*g_load)(uint64_t);

static void measure_cpu(void) {
    install("hang");
    set_threshold(3600000);  // never report: measure the steady state
    idle_poll(100);  // idle first, as an event loop is: inferred mode watches main from then on
    record_cpu(0, g_load);
}

/// Ping mode: the measuring happens on a helper thread while the main queue
/// runs (idle, or one block that stays busy for the whole measurement).
static void sleep_load(uint64_t until) {
    while (bench_now_ns(CLOCK_MONOTONIC) < until) usleep(10000);
}

static void *ping_measurer(void *arg) {
    usleep(200000);
    record_cpu(0, sleep_load);
    _exit(0);
    return arg;
}

static void busy_block(void *ctx) { (void)ctx; busy_load(bench_now_ns(CLOCK_MONOTONIC) + (uint64_t)(g_seconds + 2) * 1000000000ull); }

static int g_ping_busy;

static void measure_cpu_ping(void) {
    install("hang");
    set_threshold(3600000);
    pthread_t t;
    pthread_create(&t, 0, ping_measurer, 0);
    run_main_queue(g_ping_busy ? busy_block : 0, 100);
}

// --- 3. detection latency -------------------------------------------------------------

static int g_threshold_ms = 2000;
static int g_latency_mode;  // 0 inferred, 1 heartbeat, 2 ping

static void spin_until_reported(void) {
    uint64_t start = bench_now_ns(CLOCK_MONOTONIC);
    faultline_hang_stats s;
    uint64_t x = 1;
    uint64_t give_up = start + (uint64_t)(g_threshold_ms + 5000) * 1000000ull;
    for (;;) {
        for (int i = 0; i < 1000; i++) x = x * 6364136223846793005ull + 1;
        faultline_hang_get_stats(&s);
        if (s.hang_reports > 0 || bench_now_ns(CLOCK_MONOTONIC) > give_up) break;
    }
    g_sink = x;
    g_out->counters[0] = s.hang_reports ? s.last_report_monotonic_ns - start : 0;
    g_out->counters[1] = s.last_detection_ms;
}

static void spin_block(void *ctx) { (void)ctx; spin_until_reported(); _exit(0); }

static void measure_latency(void) {
    install("hang");
    set_threshold(g_threshold_ms);
    if (g_latency_mode == 2) run_main_queue(spin_block, 200);
    if (g_latency_mode == 1) { for (int i = 0; i < 20; i++) { faultline_heartbeat(); idle_poll(10); } }
    else idle_poll(200);  // idle first, as an event loop is
    spin_until_reported();
}

// --- 4. heartbeat -------------------------------------------------------------------------

static void measure_heartbeat(void) {
    install("hang");
    for (int r = 0; r < 200; r++) {
        uint64_t t0 = bench_now_ns(CLOCK_MONOTONIC);
        for (int i = 0; i < 10000; i++) faultline_heartbeat();
        g_out->values[g_out->count++] = (bench_now_ns(CLOCK_MONOTONIC) - t0);  // ns per 10 000 calls
    }
}

// --- main -------------------------------------------------------------------------------------

static void clear_out(void) { memset(g_out, 0, sizeof *g_out); }

static void remove_reports(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -f %s/*.json %s/.*.tmp 2>/dev/null", g_dir, g_dir);
    if (system(cmd) != 0) {}
}

// --- sections -----------------------------------------------------------------------------

/// Runs the spinning and the blocked measurement, as a stack sample or
/// (floor) as an empty round trip; the results are left in g_out's halves.
static void run_sample_children(int floor, uint64_t *spin, int *nspin, uint64_t *blocked_wall, uint64_t *blocked_cpu, int *nblocked, uint64_t *frames) {
    g_floor = floor;
    clear_out();
    run_child(measure_sample_direct);
    *nspin = g_out->count < 4096 ? g_out->count : 4096;
    memcpy(spin, g_out->values, sizeof g_out->values);
    frames[0] = g_out->counters[0];
    clear_out();
    run_child(measure_sample_blocked);
    *nblocked = g_out->count < 4096 ? g_out->count : 4096;
    memcpy(blocked_wall, g_out->values2, sizeof g_out->values2);
    memcpy(blocked_cpu, g_out->values, sizeof g_out->values);
    frames[1] = g_out->counters[0];
    g_floor = 0;
}

static void section_sample(void) {
    static uint64_t spin[2][4096], wall[2][4096], cpu[2][4096];
    int nspin[2], nblocked[2];
    uint64_t frames[2][2];
    for (int floor = 0; floor < 2; floor++) run_sample_children(floor, spin[floor], &nspin[floor], wall[floor], cpu[floor], &nblocked[floor], frames[floor]);
    if (g_json) {
        static const char *configs[] = {"agent", "empty_handler"};
        for (int f = 0; f < 2; f++) {
            emit_samples("hang.sample_spinning_main", configs[f], "us", spin[f], nspin[f], 1e3);
            emit_samples("hang.sample_blocked_main", configs[f], "us", wall[f], nblocked[f], 1e3);
            emit_samples("hang.sampled_thread_cpu", configs[f], "us", cpu[f], nblocked[f], 1e3);
        }
        return;
    }
    char what[96];
    snprintf(what, sizeof what, "one sample of a spinning main thread (%llu frames)", (unsigned long long)frames[0][0]);
    print_stats(what, spin[0], nspin[0], 1e3, "us", "(target: median <= 20 us)");
    print_stats("  floor: the same signal, empty handler", spin[1], nspin[1], 1e3, "us", 0);
    snprintf(what, sizeof what, "one sample of a blocked main thread (%llu frames)", (unsigned long long)frames[0][1]);
    print_stats(what, wall[0], nblocked[0], 1e3, "us", "(target: median <= 20 us)");
    print_stats("  floor: the same signal, empty handler", wall[1], nblocked[1], 1e3, "us", 0);
    print_stats("  CPU the sampled thread spends per sample", cpu[0], nblocked[0], 1e3, "us", 0);
    print_stats("  floor: the same, empty handler", cpu[1], nblocked[1], 1e3, "us", 0);
}

static void print_cpu(const char *name, const char *extra) {
    printf("  %-52s %6.3f %% of a core  (ticks %llu, %s/proc probes %llu at %.1f us, samples %llu at %.1f us, reused %llu)\n",
           name, g_out->figures[0], (unsigned long long)g_out->counters[0], extra,
           (unsigned long long)g_out->counters[1], g_out->counters[2] / 1e3, (unsigned long long)g_out->counters[3],
           g_out->counters[4] / 1e3, (unsigned long long)g_out->counters[5]);
}

static void section_cpu(void) {
    static const struct { const char *name; void (*load)(uint64_t); const char *id; } loads[] = {
        {"inferred mode, main idle in poll", idle_load, "inferred_idle"},
        {"heartbeat mode, loop idle (heartbeat + poll 10 ms)", heartbeat_idle_load, "heartbeat_idle"},
        {"inferred mode, main busy (sampled every tick)", busy_load, "inferred_busy"},
        {"heartbeat mode, loop stuck busy (sampled)", heartbeat_busy_load, "heartbeat_busy"},
    };
    static const char *ping_ids[] = {"ping_idle", "ping_busy"};
    if (g_json) {
        for (unsigned i = 0; i < sizeof loads / sizeof loads[0]; i++) {
            clear_out();
            g_load = loads[i].load;
            run_child(measure_cpu);
            printf("{\"metric\":\"hang.watchdog_cpu\",\"config\":\"%s\",\"unit\":\"%%core\",\"value\":%.4f}\n", loads[i].id, g_out->figures[0]);
        }
        for (int busy = 0; busy < 2; busy++) {
            clear_out();
            g_ping_busy = busy;
            run_child(measure_cpu_ping);
            printf("{\"metric\":\"hang.watchdog_cpu\",\"config\":\"%s\",\"unit\":\"%%core\",\"value\":%.4f}\n", ping_ids[busy], g_out->figures[0]);
        }
        return;
    }
    printf("\nwatchdog CPU over %d s at a 50 ms interval (target: < 1%% of one core)\n", g_seconds);
    for (unsigned i = 0; i < sizeof loads / sizeof loads[0]; i++) {
        clear_out();
        g_load = loads[i].load;
        run_child(measure_cpu);
        print_cpu(loads[i].name, "");
    }
    static const char *ping_names[] = {"ping mode (dispatch_main), main queue idle", "ping mode (dispatch_main), main queue busy"};
    for (int busy = 0; busy < 2; busy++) {
        clear_out();
        g_ping_busy = busy;
        run_child(measure_cpu_ping);
        print_cpu(ping_names[busy], "a ping per answered tick, ");
    }
}

static void section_latency(int runs) {
    char what[96];
    printf("\ndetection latency, threshold %d ms, %d runs per mode (bound: threshold + 50 ms + 100 ms = %d ms)\n",
           g_threshold_ms, runs, g_threshold_ms + 150);
    static const char *mode_names[] = {"inferred", "heartbeat", "ping"};
    for (int mode = 0; mode < 3; mode++) {
        g_latency_mode = mode;
        static uint64_t real[1000], reported[1000];
        int n = 0;
        for (int r = 0; r < runs; r++) {
            clear_out();
            run_child(measure_latency);
            remove_reports();
            if (g_out->counters[0]) { real[n] = g_out->counters[0]; reported[n] = g_out->counters[1] * 1000000ull; n++; }
        }
        snprintf(what, sizeof what, "  %s: spin start -> report committed", mode_names[mode]);
        print_stats(what, real, n, 1e6, "ms", 0);
        snprintf(what, sizeof what, "  %s: the report's detection_ms", mode_names[mode]);
        print_stats(what, reported, n, 1e6, "ms", 0);
        if (n < runs) printf("  %d of %d runs gave no report\n", runs - n, runs);
    }
}

static void section_heartbeat(void) {
    clear_out();
    run_child(measure_heartbeat);
    printf("\n");
    print_stats("one faultline_heartbeat() call (batches of 10 000)", g_out->values, g_out->count, 1e4, "ns", 0);
}

int main(int argc, char **argv) {
    int runs = 20;
    const char *only = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threshold-ms") == 0 && i + 1 < argc) g_threshold_ms = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) g_seconds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
        else if (strcmp(argv[i], "--json") == 0) g_json = 1;
        else {
            fprintf(stderr, "bench-hang: unknown argument '%s'\nusage: bench-hang [--runs N] [--threshold-ms MS] [--seconds S] [--only sample|cpu|latency|heartbeat] [--json]\n", argv[i]);
            return 2;
        }
    }
    if (only && strcmp(only, "sample") && strcmp(only, "cpu") && strcmp(only, "latency") && strcmp(only, "heartbeat")) {
        fprintf(stderr, "bench-hang: --only %s is not one of sample, cpu, latency, heartbeat\n", only);
        return 2;
    }
    if (runs < 1 || runs > 1000 || g_threshold_ms < 250 || g_seconds < 1) {
        fprintf(stderr, "bench-hang: --runs must be 1...1000, --threshold-ms at least 250, --seconds at least 1\n");
        return 2;
    }
    if (!mkdtemp(g_dir)) { perror("bench-hang: mkdtemp"); return 2; }
    setenv("SWIFT_BACKTRACE", "enable=no", 1);
    g_out = mmap(0, sizeof *g_out, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    setvbuf(stdout, 0, _IOLBF, 0);
    double load[1] = {0};
    getloadavg(load, 1);
    if (g_json) {
        // Only the sections with a machine-readable form.
        if (!only || !strcmp(only, "sample")) section_sample();
        if (!only || !strcmp(only, "cpu")) section_cpu();
        remove_reports();
        rmdir(g_dir);
        return 0;
    }
    printf("bench-hang: hang detector costs (%ld cores online, load average %.2f)\n", sysconf(_SC_NPROCESSORS_ONLN), load[0]);
    printf("Times are wall-clock: on a loaded machine a sample waits for the sampled thread to get a CPU.\n\n");

    if (!only || !strcmp(only, "sample")) section_sample();
    if (!only || !strcmp(only, "cpu")) section_cpu();
    if (!only || !strcmp(only, "latency")) section_latency(runs);
    if (!only || !strcmp(only, "heartbeat")) section_heartbeat();

    remove_reports();
    rmdir(g_dir);
    return 0;
}
