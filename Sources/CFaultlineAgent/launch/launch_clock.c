#include "launch_clock.h"
#include "cpu_monitor.h"
#include "env_option.h"
#include "faultline.h"
#include "interpose_next.h"
#include "launch_report.h"
#include "sigsafe.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static fl_launch_times g_t;
static atomic_int g_on;
static _Atomic uint64_t g_ready_ns;
static atomic_int g_done;  // the record (and any report) written

uint64_t fl_launch_ready_ns(void) { return atomic_load_explicit(&g_ready_ns, memory_order_relaxed); }

void fl_launch_note_constructor(void) {
    if (!g_t.constructor_ns) g_t.constructor_ns = fl_monotonic_ns();
}

// --- main -------------------------------------------------------------------

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_main_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *);
static main_fn g_main;

// Runs in main's place: one clock read, then main itself by a tail call, so
// no frame of ours sits under main in any stack.
static int launch_main(int argc, char **argv, char **envp) {
    g_t.main_ns = fl_monotonic_ns();
    __attribute__((musttail)) return g_main(argc, argv, envp);
}

/// Interposes glibc's __libc_start_main (which the executable's _start
/// calls once) to see when main begins.
FL_EXPORT int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                                void (*rtld_fini)(void), void *stack_end) {
    static start_main_fn next;
    FL_NEXT_SLOT(next, "__libc_start_main")
    if (!next) next = (start_main_fn)dlsym(RTLD_NEXT, "__libc_start_main");
    if (!next) _exit(127);
    g_main = main;
    return next(launch_main, argc, argv, init, fini, rtld_fini, stack_end);
}

// --- exec time ---------------------------------------------------------------

// The process's start from /proc/self/stat (field 22, clock ticks since
// boot) on CLOCK_MONOTONIC: the fork's time, to 10 ms.
static uint64_t start_from_proc(void) {
    char buf[1024];
    if (fl_read_file("/proc/self/stat", buf, sizeof buf) <= 0) return 0;
    const char *p = strrchr(buf, ')');
    if (!p) return 0;
    for (int field = 2; *p && field < 22; p++)
        if (*p == ' ') field++;
    uint64_t ticks = strtoull(p, 0, 10);
    long hz = sysconf(_SC_CLK_TCK);
    struct timespec boot, mono;
    if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) != 0 || clock_gettime(CLOCK_MONOTONIC, &mono) != 0) return 0;
    uint64_t boot_ns = (uint64_t)boot.tv_sec * 1000000000ull + (uint64_t)boot.tv_nsec;
    uint64_t mono_ns = (uint64_t)mono.tv_sec * 1000000000ull + (uint64_t)mono.tv_nsec;
    uint64_t start_boot = ticks * (1000000000ull / (uint64_t)hz);
    if (start_boot > boot_ns) return 0;
    uint64_t ago = boot_ns - start_boot;
    return ago < mono_ns ? mono_ns - ago : 0;
}

// Set by `faultline exec` just before it starts the program: taken by the
// first image that reads it, and removed so its children do not.
static void read_exec_time(void) {
    const char *v = fl_option_value(FL_OPT_LAUNCH_EXEC_NS);
    uint64_t now = fl_monotonic_ns();
    if (v && *v) {
        char *end;
        unsigned long long ns = strtoull(v, &end, 10);
        if (!*end && ns <= now && now - ns < 600000000000ull) {
            g_t.exec_ns = ns;
            g_t.from_exec = 1;
        }
        fl_option_said("FAULTLINE_LAUNCH_EXEC_NS");
    }
    if (!g_t.exec_ns) g_t.exec_ns = start_from_proc();
}

int fl_launch_install(void) {
    read_exec_time();
    g_t.threshold_ms = (uint64_t)fl_env_int(FL_OPT_LAUNCH_THRESHOLD);
    atomic_store(&g_on, 1);
    return 0;
}

void fl_launch_uninstall(void) { atomic_store(&g_on, 0); }

static void finish(const char *how) {
    if (!atomic_load(&g_on) || atomic_exchange(&g_done, 1)) return;
    g_t.ready_by = how;
    fl_launch_write(&g_t);
}

void fl_launch_note_ready(uint64_t now_ns, const char *how) {
    uint64_t expected = 0;
    if (atomic_load_explicit(&g_ready_ns, memory_order_relaxed) ||
        !atomic_compare_exchange_strong(&g_ready_ns, &expected, now_ns ? now_ns : 1))
        return;
    g_t.ready_ns = now_ns;
    fl_cpu_program_ready();
    finish(how);
}

FL_EXPORT void faultline_ready(void) { fl_launch_note_ready(fl_monotonic_ns(), "faultline_ready"); }

// A program that never became ready (a batch job): its launch up to main,
// at exit.
__attribute__((destructor)) static void launch_at_exit(void) { finish(0); }
