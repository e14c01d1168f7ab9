#include "tool_log.h"
#include "env_option.h"
#include "fd_transient.h"
#include "fd_guard.h"
#include "altstack.h"
#include "cred_mirror.h"
#include "memory_monitor.h"
#include "memory_cgroup.h"
#include "memory_code_lock.h"
#include "memory_pressure.h"
#include "memory_stacks.h"
#include "proc_tid.h"
#include "report_file.h"
#include "sigsafe.h"
#include "solo_call.h"
#include "thread_count.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/// Gap between two memory_warning reports: one pressure episode makes the
/// kernel notify many times a second.
#define WARNING_GAP_NS 1000000000ull

static fl_memory_options g_opt;
static fl_memcg g_cg;
static fl_pressure g_pressure;
static int g_installed;
static char g_status[512];
static uint64_t g_max_seen;                     // own peak when the kernel keeps none
static unsigned char g_written[FL_BREADCRUMB_SLOTS];
static int g_warnings;
static uint64_t g_last_warning_ns;
static char g_crumb[FL_BREADCRUMB_SLOT - 16];
static int g_statm = -1;                        // the monitor thread's statm (the process's numbers)
static char g_report[256u << 10];

static void env_word(fl_option_id id, const char *const *allowed, char *out, size_t cap) {
    const char *name = fl_option_at(id)->name, *def = fl_option_at(id)->default_text;
    const char *v = fl_option_value(id);
    fl_strlcpy(out, def, cap);
    if (!v || !*v) return;
    for (int i = 0; allowed[i]; i++)
        if (strcmp(v, allowed[i]) == 0) { fl_strlcpy(out, v, cap); return; }
    fl_log_printf("faultline: %s=%s is not one of low, medium, critical, off; using %s\n", name, v, def);
    fl_option_said(name);
}

/// The PSI trigger used when FAULTLINE_MEMORY_PSI is unset or unusable.
#define DEFAULT_PSI (fl_option_at(FL_OPT_MEMORY_PSI)->default_text)

/// 1 for "off" or "some|full STALL_US WINDOW_US" (positive numbers): what
/// the kernel parses. Anything else it refuses, or reads in part.
static int psi_trigger_valid(const char *t) {
    if (strcmp(t, "off") == 0) return 1;
    if (strncmp(t, "some ", 5) != 0 && strncmp(t, "full ", 5) != 0) return 0;
    const char *p = t + 5;
    for (int field = 0; field < 2; field++) {
        const char *start = p;
        while (*p >= '0' && *p <= '9') p++;
        if (p == start || (p - start == 1 && *start == '0')) return 0;
        if (field == 0 && *p++ != ' ') return 0;
    }
    return *p == 0;
}

/// "50,75,90,95": ascending percentages in 1..100.
static int parse_thresholds(const char *text, int *out, int cap) {
    int n = 0, prev = 0;
    const char *p = text;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v <= prev || v > 100 || n == cap || (*end && *end != ',')) return -1;
        out[n++] = (int)v;
        prev = (int)v;
        p = *end ? end + 1 : end;
    }
    return n;
}

void fl_memory_options_load(fl_memory_options *o) {
    static const char *const levels[] = {"low", "medium", "critical", "off", 0};
    o->interval_ms = fl_env_int(FL_OPT_MEMORY_INTERVAL_MS);
    const char *t = fl_option_value(FL_OPT_MEMORY_THRESHOLDS);
    o->threshold_count = t && *t ? parse_thresholds(t, o->thresholds, FL_BREADCRUMB_SLOTS) : -1;
    if (o->threshold_count <= 0) {
        if (t && *t) {
            fl_log_printf("faultline: FAULTLINE_MEMORY_THRESHOLDS=%s is not up to %d ascending percentages like 50,75,90,95; using those\n",
                    t, FL_BREADCRUMB_SLOTS);
            fl_option_said("FAULTLINE_MEMORY_THRESHOLDS");
        }
        o->threshold_count = parse_thresholds(fl_option_at(FL_OPT_MEMORY_THRESHOLDS)->default_text, o->thresholds, FL_BREADCRUMB_SLOTS);
    }
    o->top_stacks = fl_env_int(FL_OPT_MEMORY_TOP_STACKS);
    env_word(FL_OPT_MEMORY_PRESSURE, levels, o->pressure_level, sizeof o->pressure_level);
    const char *psi = fl_option_value(FL_OPT_MEMORY_PSI);
    fl_strlcpy(o->psi_trigger, DEFAULT_PSI, sizeof o->psi_trigger);
    o->psi_given = 0;
    if (psi && *psi) {
        if (psi_trigger_valid(psi) && strlen(psi) < sizeof o->psi_trigger) {
            fl_strlcpy(o->psi_trigger, psi, sizeof o->psi_trigger);
            o->psi_given = strcmp(psi, "off") != 0;
        } else {
            fl_log_printf("faultline: FAULTLINE_MEMORY_PSI=%s is not 'some|full STALL_US WINDOW_US' or off; using %s\n", psi, DEFAULT_PSI);
            fl_option_said("FAULTLINE_MEMORY_PSI");
        }
    }
    o->warnings_max = fl_env_int(FL_OPT_MEMORY_WARNINGS);
    o->follow_fork = fl_env_int(FL_OPT_MEMORY_FOLLOW_FORK);
}

const char *fl_memory_monitor_status(void) { return g_status; }

static uint64_t peak_now(uint64_t usage) {
    if (usage > g_max_seen) g_max_seen = usage;
    uint64_t k = fl_memcg_peak(&g_cg);
    return k ? k : g_max_seen;
}

// Set to 1 once the starter has opened the monitor thread's statm (by the
// id fl_agent_thread_create recorded: g_solo.tid).
static atomic_int g_statm_ready;

/// Opens (again, in a forked child) the monitor thread's statm, on the
/// thread that starts the monitor: the kernel reads statm through the task
/// it was opened for, and the main thread's (/proc/self) reads 0 once the
/// main thread has ended (pthread_exit) while the others run on. Opened
/// here rather than on the monitor thread because an open on a thread of
/// ours takes the program's lowest free fd until fl_fd_guard moves it: at
/// start-up the program may be dup2'ing onto low numbers at that moment
/// (crash.dup2-onto-low-fds), and the move would then take its fd.
static void open_statm(pid_t tid) {
    if (g_statm >= 0) fl_fd_close(g_statm);
    char path[64];
    fl_proc_task_path(path, sizeof path, fl_proc_tid(tid), "statm");
    // Read for the monitor's life: a program closing every fd must not take it.
    g_statm = tid > 0 ? fl_fd_guard(fl_open_high(path, O_RDONLY | O_CLOEXEC)) : -1;
    char buf[128];
    if (g_statm >= 0) pread(g_statm, buf, sizeof buf, 0);
}

/// Resident set size from the monitor thread's statm (open_statm).
static uint64_t rss_bytes(void) {
    char buf[128];
    ssize_t n = g_statm >= 0 ? pread(g_statm, buf, sizeof buf - 1, 0) : -1;
    if (n <= 0) return 0;
    buf[n] = 0;
    const char *p = buf;
    fl_parse_dec(p, &p);
    return fl_parse_dec(p + 1, 0) * (uint64_t)sysconf(_SC_PAGESIZE);
}

/// usage, limit, peak, percent, rss and the cgroup, into the current object.
static void write_memory(fl_json *w, uint64_t usage, uint64_t limit) {
    fl_json_uint(w, "usage_bytes", usage);
    if (limit != UINT64_MAX) {
        fl_json_uint(w, "limit_bytes", limit);
        fl_json_uint(w, "percent", limit ? usage * 100 / limit : 0);
    }
    fl_json_uint(w, "peak_bytes", peak_now(usage));
    fl_json_uint(w, "rss_bytes", rss_bytes());
    fl_json_string(w, "cgroup", g_cg.path);
    fl_json_int(w, "cgroup_version", g_cg.version);
}

// Opens a breadcrumb object with the fields every breadcrumb carries.
static void begin_breadcrumb(fl_json *w, int slot, uint64_t usage, uint64_t limit, uint64_t now) {
    char iso[32];
    fl_fmt_iso8601(iso, now);
    fl_json_init(w, g_crumb, sizeof g_crumb);
    fl_json_begin_object(w, 0);
    fl_json_int(w, "threshold_percent", g_opt.thresholds[slot]);
    write_memory(w, usage, limit);
    fl_json_string(w, "time", iso);
    fl_json_uint(w, "time_unix_ms", now / 1000000ull);
    fl_json_int(w, "pid", getpid());
}

static void write_breadcrumb(int slot, uint64_t usage, uint64_t limit) {
    if (fl_breadcrumb_open() != 0) return;
    fl_json w;
    uint64_t now = fl_realtime_ns();
    begin_breadcrumb(&w, slot, usage, limit, now);
    if (g_opt.top_stacks > 0) fl_memory_stacks_write(&w, g_opt.top_stacks);
    fl_json_end_object(&w);
    if (w.overflowed) {
        // Too many stacks or images for a slot: keep the numbers.
        begin_breadcrumb(&w, slot, usage, limit, now);
        fl_json_string(&w, "top_stacks_unavailable", "the stacks did not fit into a breadcrumb slot");
        fl_json_end_object(&w);
    }
    fl_breadcrumb_write(slot, g_crumb, w.len);
}

/// Writes a breadcrumb for the highest threshold newly passed, and re-arms
/// thresholds usage has fallen 10 points below.
static void check_thresholds(uint64_t usage, uint64_t limit) {
    if (limit == UINT64_MAX || limit == 0) return;
    // Percent times 100, in integers (usage * 10000 fits: usage < 2^50).
    uint64_t pct = usage * 10000 / limit;
    for (int i = 0; i < g_opt.threshold_count; i++)
        if (g_written[i] && pct + 1000 < (uint64_t)g_opt.thresholds[i] * 100) g_written[i] = 0;
    for (int i = g_opt.threshold_count - 1; i >= 0; i--) {
        if (pct < (uint64_t)g_opt.thresholds[i] * 100) continue;
        if (!g_written[i]) {
            write_breadcrumb(i, usage, limit);
            for (int j = 0; j <= i; j++) g_written[j] = 1;
        }
        break;
    }
}

static void warn(int source) {
    uint64_t now = fl_monotonic_ns();
    fl_report r;
    fl_report_begin(&r, g_report, sizeof g_report, "memory_warning");
    if (!fl_pressure_take(&g_pressure, source, &r.json)) return;
    // Consumed either way; reported at most warnings_max times, 1 s apart.
    if (g_warnings >= g_opt.warnings_max || (g_last_warning_ns && now - g_last_warning_ns < WARNING_GAP_NS)) return;
    uint64_t usage = fl_memcg_usage(&g_cg), limit = fl_memcg_limit(&g_cg);
    fl_json_begin_object(&r.json, "memory");
    write_memory(&r.json, usage, limit);
    fl_json_end_object(&r.json);
    fl_json_int(&r.json, "warning_number", g_warnings + 1);
    if (g_opt.top_stacks > 0) fl_memory_stacks_write(&r.json, g_opt.top_stacks);
    // Counted even when it could not go into a file: fl_report_commit then
    // printed it to stderr, and must not do so again every tick.
    fl_report_commit(&r, 0, 0);
    g_warnings++;
    g_last_warning_ns = now;
}

/// Bytes of its stack the monitor touches before its first tick.
#define STACK_PREFAULT (64u << 10)

/// Touches the first STACK_PREFAULT bytes of the calling thread's stack.
__attribute__((noinline)) static void prefault_stack(void) {
    volatile char area[STACK_PREFAULT];
    for (size_t i = 0; i < sizeof area; i += 4096) area[i] = 0;
}

/// Makes every page a breadcrumb needs resident and charged now, while the
/// cgroup is far from its limit. A page charged later, as the cgroup hits its
/// limit, would make this process ask for memory just as another process in
/// the cgroup is being OOM-killed; the kernel stops waiting for a victim once
/// its address space is torn down, before the last of its pages are
/// uncharged, and then kills the asker as a second victim (seen in
/// memory-limits.child-oom: the parent killed 3 ms after its child).
static void charge_up_front(void) {
    uint64_t limit = fl_memcg_limit(&g_cg);
    if (limit == UINT64_MAX || limit == 0) return;  // no thresholds, no breadcrumbs
    fl_breadcrumb_open();
    memset(g_crumb, 0, sizeof g_crumb);
    fl_memory_stacks_prefault();
    fl_memory_code_lock();
}

static int start_thread(void);

/// The monitor, stopped around calls the kernel refuses in a
/// multi-threaded process (solo_call.h) between two samples; a signal cuts
/// its poll short. Thresholds passed, breadcrumbs and warnings stay; the
/// new thread's statm is opened anew (the old one reads 0 once its thread
/// has ended).
static fl_solo_thread g_solo = {.name = "faultline-mem", .wake = fl_solo_wake_by_signal, .start = start_thread};

static void *monitor(void *unused) {
    // Never the target of the program's process-directed signals.
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, 0);
    fl_cred_mirror_thread_begin();  // but for the agent's signal
    fl_solo_thread_begin(&g_solo);
    prefault_stack();
    // Mostly set before the thread first runs; the starter wakes it if not.
    while (!atomic_load(&g_statm_ready))
        syscall(SYS_futex, &g_statm_ready, (long)FUTEX_WAIT_PRIVATE, 0L, (void *)0, (void *)0, 0L);
    // Asked to stop, it ends after the sample under way: a PSI trigger's
    // event, once poll has seen it, is not seen again.
    while (!fl_solo_thread_stop_asked(&g_solo)) {
        int ready = poll(g_pressure.pfds, (nfds_t)g_pressure.count, g_opt.interval_ms);
        if (ready < 0 && errno != EINTR) fl_sleep_ns((uint64_t)g_opt.interval_ms * 1000000ull);
        uint64_t usage = fl_memcg_usage(&g_cg);
        check_thresholds(usage, fl_memcg_limit(&g_cg));
        for (int i = 0; ready > 0 && i < g_pressure.count; i++)
            if (g_pressure.pfds[i].revents) warn(i);
    }
    fl_cred_mirror_thread_end();
    fl_thread_recount();
    return 0;
}

static int start_thread(void) {
    pthread_t t;
    atomic_store(&g_statm_ready, 0);
    int rc = fl_agent_thread_create(&g_solo, &t, 1, 256u << 10, monitor);
    if (rc != 0) { errno = rc; return -1; }
    // Its statm opened here by the id recorded at its creation, then let run.
    open_statm(atomic_load(&g_solo.tid));
    atomic_store(&g_statm_ready, 1);
    syscall(SYS_futex, &g_statm_ready, (long)FUTEX_WAKE_PRIVATE, 1L, (void *)0, (void *)0, 0L);
    fl_thread_uncount();  // it must not keep the process alive
    return 0;
}

/// In a forked child: its own breadcrumb file and thread; the kernel's
/// pressure registrations stay with the parent.
static void after_fork_child(void) {
    if (!g_installed || !g_opt.follow_fork) return;
    fl_pressure_close(&g_pressure);
    memset(g_written, 0, sizeof g_written);
    g_warnings = 0;
    charge_up_front();
    start_thread();
}

/// A normal exit leaves no breadcrumbs: only a killed process needs them.
__attribute__((destructor)) static void remove_breadcrumbs(void) { fl_breadcrumb_remove(); }

int fl_memory_monitor_install(void) {
    if (g_installed) return 0;
    fl_memory_options_load(&g_opt);
    // No limit on the cgroup or above it: no threshold, breadcrumb or OOM
    // kill of the cgroup's to watch for, so no thread and no fd (the
    // default set held 8 for it in every process: issue 37), and its usage
    // and peak are not even opened. A limit set later (systemd-run -p
    // MemoryMax on a running unit) is not seen. Pressure asked for by name
    // is watched all the same: the kernel signals it from global reclaim too.
    const char *asked = fl_option_value(FL_OPT_MEMORY_PRESSURE);
    int pressure_asked = asked && *asked && strcmp(g_opt.pressure_level, "off") != 0;
    int opened = fl_memcg_open(&g_cg, !g_opt.psi_given && !pressure_asked, g_status, sizeof g_status);
    if (opened < 0) return 1;
    if (opened == 1) {
        snprintf(g_status, sizeof g_status, "idle: cgroup %s has no memory limit (nor its parents)", g_cg.path);
        return 1;
    }
    fl_memory_stacks_init();
    char why[256];
    fl_pressure_open(&g_pressure, &g_cg, g_opt.pressure_level, g_opt.psi_trigger, g_opt.psi_given ? DEFAULT_PSI : 0, why, sizeof why);
    if (why[0]) fl_strlcpy(g_status, why, sizeof g_status);
    // A level the user asked for that could not be registered: say so, once.
    const char *level = fl_option_value(FL_OPT_MEMORY_PRESSURE);
    if (level && strcmp(level, g_opt.pressure_level) == 0 && strcmp(level, "off") != 0 && g_pressure.level_refused[0])
        fl_log_printf("faultline: FAULTLINE_MEMORY_PRESSURE=%s was not registered: %s (registering needs write access to cgroup.event_control: run as the cgroup's owner, or set FAULTLINE_MEMORY_PRESSURE=off); no v1 pressure warnings\n",
                level, g_pressure.level_refused);
    // A trigger the user asked for and the kernel refused: say so, once.
    if (g_opt.psi_given && g_pressure.psi_refused[0])
        fl_log_printf("faultline: FAULTLINE_MEMORY_PSI=%s was refused: %s (the window must be 500000 to 10000000 us, a multiple of 2000000 without CAP_SYS_RESOURCE, and the stall no longer than it); %s%s\n",
                g_opt.psi_trigger, g_pressure.psi_refused, g_pressure.psi_on ? "using " : "no PSI pressure warnings", g_pressure.psi_on ? DEFAULT_PSI : "");
    charge_up_front();
    fl_breadcrumb_restore();  // a reinstall: the file the uninstall took away
    if (start_thread() != 0) return -1;
    static int once;
    if (!once++) pthread_atfork(0, 0, after_fork_child);
    g_installed = 1;
    return 0;
}

void fl_memory_monitor_uninstall(void) {
    if (!g_installed) return;
    // Not stopped in 2 s (a stopped process): it ends at its next poll, and
    // its fds stay with it rather than close under its reads.
    if (!fl_solo_thread_stop(&g_solo)) return;
    g_installed = 0;
    fl_pressure_close(&g_pressure);
    fl_memcg_close(&g_cg);
    if (g_statm >= 0) fl_fd_close(g_statm);
    g_statm = -1;
    fl_breadcrumb_remove();
    memset(g_written, 0, sizeof g_written);
    g_warnings = 0;
}
