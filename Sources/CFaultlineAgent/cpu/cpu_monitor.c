#include "tool_log.h"
#include "cpu_monitor.h"
#include "altstack.h"
#include "cpu_report.h"
#include "cpu_stacks.h"
#include "cred_mirror.h"
#include "crash_handler.h"
#include "env_option.h"
#include "event_wait.h"
#include "hang_probe.h"
#include "hang_watchdog.h"
#include "launch_clock.h"
#include "sigsafe.h"
#include "solo_call.h"
#include "thread_capture.h"
#include "thread_count.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 1024
#define MAX_EPISODES 4
#define EXIT_WAIT_NS 1000000000ull

typedef struct {
    pid_t tid;
    uint64_t last_cpu, last_ns;
    unsigned round;   // the check that last saw it
    int episode;      // index into g_episodes, -1 when none
} cpu_thread;

typedef struct {
    int used, reported;
    pid_t tid;
    uint64_t start_ns, start_cpu, start_process_cpu;
    fl_cpu_stacks stacks;
} cpu_episode;

static struct { int threshold, window_ms, interval_ms, sample_ms; } g_opt;
static cpu_thread g_threads[MAX_THREADS];
static int g_nthreads;
static unsigned g_round;
static cpu_episode g_episodes[MAX_EPISODES];
static pid_t g_tids[MAX_THREADS];
static uintptr_t g_pcs[FL_MAX_FRAMES];

static atomic_int g_installed, g_running, g_exit, g_busy;
static int g_debug;  // FAULTLINE_CPU_DEBUG=1: a line per thread above half the threshold, per check
static atomic_uint g_wake;
static pthread_t g_thread;

static uint64_t ns_of(const struct timespec *t) { return (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_nsec; }

// Another thread's CPU clock (the kernel's MAKE_THREAD_CPUCLOCK(tid,
// CPUCLOCK_SCHED)): readable for any thread of this process. 0 when gone.
static uint64_t thread_cpu_ns(pid_t tid) {
    struct timespec t;
    clockid_t id = (clockid_t)((~(unsigned)tid << 3) | 6);
    return clock_gettime(id, &t) == 0 ? ns_of(&t) : 0;
}

static uint64_t process_cpu_ns(void) {
    struct timespec t;
    return clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) == 0 ? ns_of(&t) : 0;
}

static int share_above(uint64_t cpu, uint64_t ns, int percent) { return ns && cpu * 100 >= (uint64_t)percent * ns; }

static void end_episode(cpu_thread *t) {
    if (t->episode >= 0) g_episodes[t->episode].used = 0;
    t->episode = -1;
}

static void start_episode(cpu_thread *t) {
    for (int i = 0; i < MAX_EPISODES; i++) {
        cpu_episode *e = &g_episodes[i];
        if (e->used) continue;
        *e = (cpu_episode){.used = 1, .tid = t->tid, .start_ns = t->last_ns, .start_cpu = t->last_cpu,
                           .start_process_cpu = process_cpu_ns()};
        fl_cpu_stacks_clear(&e->stacks);
        t->episode = i;
        return;
    }
}

// The main thread busy in a hang the hang detector has reported since the
// episode began: that report is the one to read.
static int reported_as_hang(const cpu_episode *e) {
    return e->tid == getpid() && fl_hang_running() && fl_hang_last_report_ns() >= e->start_ns;
}

static void report(cpu_episode *e, uint64_t now, uint64_t cpu) {
    e->reported = 1;
    if (reported_as_hang(e)) return;
    fl_cpu_episode_info info = {
        .tid = e->tid, .duration_ns = now - e->start_ns, .cpu_ns = cpu - e->start_cpu,
        .process_cpu_ns = process_cpu_ns() - e->start_process_cpu, .threshold_percent = g_opt.threshold,
        .window_ms = g_opt.window_ms, .sample_ms = g_opt.sample_ms, .stacks = &e->stacks,
    };
    fl_cpu_report_hog(&info);
}

static cpu_thread *entry(pid_t tid) {
    for (int i = 0; i < g_nthreads; i++)
        if (g_threads[i].tid == tid) return &g_threads[i];
    if (g_nthreads == MAX_THREADS) return 0;
    cpu_thread *t = &g_threads[g_nthreads++];
    *t = (cpu_thread){.tid = tid, .episode = -1};
    return t;
}

// One look at every thread's CPU time (docs/resources.md, "Episodes").
static void check(uint64_t now) {
    int total = 0, n = fl_threads_list(g_tids, MAX_THREADS, &total);
    g_round++;
    int ready = fl_launch_ready_ns() != 0;
    uint64_t window = (uint64_t)g_opt.window_ms * 1000000ull;
    for (int i = 0; i < n; i++) {
        pid_t tid = g_tids[i];
        if (fl_solo_thread_is_faultlines(tid)) continue;
        uint64_t cpu = thread_cpu_ns(tid);
        cpu_thread *t = cpu ? entry(tid) : 0;
        if (!t) continue;
        t->round = g_round;
        if (!t->last_ns) { t->last_cpu = cpu; t->last_ns = now; continue; }
        int hot = share_above(cpu - t->last_cpu, now - t->last_ns, g_opt.threshold);
        int cool = !share_above(cpu - t->last_cpu, now - t->last_ns, g_opt.threshold / 2);
        if (g_debug && !cool) {
            char line[160];
            int len = snprintf(line, sizeof line, "faultline-cpu: tid %d %llu%% of a core, episode %d, ready %d\n", (int)tid,
                               (unsigned long long)((cpu - t->last_cpu) * 100 / (now - t->last_ns)), t->episode, ready);
            fl_log_write(line, (size_t)len);
        }
        if (t->episode < 0) {
            if (hot && ready) start_episode(t);
        } else {
            cpu_episode *e = &g_episodes[t->episode];
            uint64_t span = now - e->start_ns;
            int above = share_above(cpu - e->start_cpu, span, g_opt.threshold);
            if (e->reported) {
                if (cool) end_episode(t);
            } else if (span >= window) {
                if (above) report(e, now, cpu);
                else end_episode(t);
            } else if (cool) {
                end_episode(t);
            }
        }
        t->last_cpu = cpu;
        t->last_ns = now;
    }
    // Threads gone since the last check.
    for (int i = 0; i < g_nthreads;) {
        if (g_threads[i].round == g_round) { i++; continue; }
        end_episode(&g_threads[i]);
        g_threads[i] = g_threads[--g_nthreads];
    }
}

static int sample_all(void) {
    int any = 0;
    for (int i = 0; i < MAX_EPISODES; i++) {
        cpu_episode *e = &g_episodes[i];
        if (!e->used || e->reported) continue;
        any = 1;
        int by_fp = 0, stopped = 0;
        int n = fl_capture_thread_sample(e->tid, g_pcs, FL_CPU_FRAMES, 50000000ull, &by_fp, &stopped);
        fl_cpu_stacks_add(&e->stacks, g_pcs, n, by_fp);
    }
    return any;
}

// Until the hang detector (off) can say so: main waiting for events as an
// event loop does makes the program ready.
static void look_for_event_loop(uint64_t now) {
    if (fl_launch_ready_ns() || fl_hang_running()) return;
    fl_thread_probe p;
    if (fl_probe_thread(getpid(), &p) == 0 && fl_probe_classify(&p) == FL_WAIT_IDLE && fl_probe_waits_for_events(&p))
        fl_launch_note_ready(now, "event_loop");
}

// --- the thread ---------------------------------------------------------------

static void wait_until(uint64_t deadline) {
    unsigned seen = atomic_load(&g_wake);
    for (uint64_t now = fl_monotonic_ns(); now < deadline; now = fl_monotonic_ns()) {
        if (atomic_load(&g_exit) || atomic_load(&g_wake) != seen) return;
        uint64_t left = deadline - now;
        struct timespec ts = {(time_t)(left / 1000000000ull), (long)(left % 1000000000ull)};
        if (syscall(SYS_futex, &g_wake, FUTEX_WAIT_PRIVATE, seen, &ts, (void *)0, 0) == 0 || errno != EINTR) return;
    }
}

static void wake(fl_solo_thread *t) {
    (void)t;
    atomic_fetch_add(&g_wake, 1);
    syscall(SYS_futex, &g_wake, FUTEX_WAKE_PRIVATE, 1, (void *)0, (void *)0, 0);
}

static int restart(void);
static fl_solo_thread g_solo = {.name = "faultline-cpu", .wake = wake, .start = restart};

static void block_signals(void) {
    sigset_t set;
    sigfillset(&set);
    static const int keep[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
    for (unsigned i = 0; i < sizeof keep / sizeof keep[0]; i++) sigdelset(&set, keep[i]);
    if (fl_threads_signal()) sigdelset(&set, fl_threads_signal());
    pthread_sigmask(SIG_SETMASK, &set, 0);
}

static void *monitor_main(void *unused) {
    (void)unused;
    block_signals();
    fl_cred_mirror_thread_begin();
    fl_solo_thread_begin(&g_solo);
    uint64_t sample_ns = (uint64_t)g_opt.sample_ms * 1000000ull, interval_ns = (uint64_t)g_opt.interval_ms * 1000000ull;
    uint64_t now = fl_monotonic_ns(), next_check = now + interval_ns, next_sample = now + sample_ns;
    int sampling = 0;
    for (;;) {
        wait_until(sampling && next_sample < next_check ? next_sample : next_check);
        if (fl_solo_thread_stop_asked(&g_solo)) break;
        if (atomic_load(&g_exit) || !atomic_load(&g_installed)) { fl_solo_thread_end(&g_solo); break; }
        now = fl_monotonic_ns();
        if (fl_crash_in_progress()) continue;
        atomic_store(&g_busy, 1);
        if (sampling && now >= next_sample) {
            sampling = sample_all();
            next_sample += sample_ns;
            if (next_sample < now) next_sample = now + sample_ns;
        }
        if (now >= next_check) {
            look_for_event_loop(now);
            check(now);
            next_check += interval_ns;
            if (next_check < now) next_check = now + interval_ns;
            if (!sampling) { sampling = sample_all(); next_sample = now + sample_ns; }
        }
        atomic_store(&g_busy, 0);
    }
    atomic_store(&g_busy, 0);
    fl_cred_mirror_thread_end();
    fl_thread_recount();
    return 0;
}

static int start(void) {
    int rc = fl_agent_thread_create(&g_solo, &g_thread, 0, 0, monitor_main);
    if (rc != 0) { errno = rc; return -1; }
    fl_thread_uncount();
    return 0;
}

static int restart(void) {
    pthread_join(g_thread, 0);
    if (start() == 0) return 0;
    atomic_store(&g_running, 0);
    return -1;
}

// At exit: a report being written is finished first (a process that
// exits mid-write would leave it as a hidden temporary file).
static void at_exit(void) {
    if (!atomic_load(&g_running)) return;
    atomic_store(&g_exit, 1);
    wake(0);
    uint64_t deadline = fl_monotonic_ns() + EXIT_WAIT_NS;
    while (atomic_load(&g_busy) && fl_monotonic_ns() < deadline) fl_sleep_ns(1000000);
}

static void after_fork_child(void) { atomic_store(&g_running, 0); }

void fl_cpu_program_ready(void) {
    if (!atomic_load(&g_installed) || atomic_exchange(&g_running, 1)) return;
    if (start() != 0) atomic_store(&g_running, 0);
}

int fl_cpu_install(void) {
    if (atomic_load(&g_installed)) return 0;
    g_opt.threshold = fl_env_int(FL_OPT_CPU_THRESHOLD);
    g_opt.window_ms = fl_env_int(FL_OPT_CPU_WINDOW_MS);
    g_opt.interval_ms = fl_env_int(FL_OPT_CPU_INTERVAL_MS);
    g_opt.sample_ms = fl_env_int(FL_OPT_CPU_SAMPLE_MS);
    g_debug = fl_env_int(FL_OPT_CPU_DEBUG);
    if (fl_cpu_report_init() != 0) return -1;
    atomic_store(&g_installed, 1);
    static int once;  // a reinstall registers nothing twice
    if (!once++) {
        atexit(at_exit);
        pthread_atfork(0, 0, after_fork_child);
    }
    // Without the hang detector nobody else looks for main's event loop.
    if (!fl_hang_running() || fl_launch_ready_ns()) {
        if (!fl_hang_running()) fl_probe_keep(getpid());
        fl_cpu_program_ready();
    }
    return 0;
}

void fl_cpu_uninstall(void) {
    atomic_store(&g_installed, 0);
    wake(0);
    // Joined, so that a reinstall's thread is the only one.
    if (atomic_load(&g_running)) pthread_join(g_thread, 0);
    atomic_store(&g_running, 0);
}
