// Agent install: resolves options (API struct, then FAULTLINE_* variables,
// then defaults), opens the report directory, preallocates, and installs
// the detectors. The constructor installs it automatically when the agent is
// preloaded and FAULTLINE_REPORT_DIR is set.
#include "env_option.h"
#include "exe_match.h"
#include "tool_log.h"
#include "environ_pin.h"
#include "fd_high.h"
#include "fd_limit.h"
#include "fd_transient.h"
#include "symbol_table.h"
#include "faultline.h"
#include "agent_config.h"
#include "annotate.h"
#include "report_dir_open.h"
#include "altstack.h"
#include "crash_handler.h"
#include "cred_mirror.h"
#include "cxx_exception.h"
#include "cpu_monitor.h"
#include "fds_detector.h"
#include "launch_clock.h"
#include "threads_detector.h"
#include "fault_mask.h"
#include "hang_watchdog.h"
#include "memory_monitor.h"
#include "report_file.h"
#include "sigsafe.h"
#include "stderr_capture.h"
#include "thread_capture.h"
#include "thread_count.h"
#include "under_valgrind.h"
#include "unwinder.h"
#include "unwind_pipe.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

fl_config fl_agent_config;
static int g_installed;
static char g_error[512];

const char *faultline_last_error(void) { return g_error; }
int faultline_is_installed(void) { return g_installed; }

static int memory_install(void) { return fl_memory_monitor_install() < 0 ? -1 : 0; }

// Every detector, in install order, through one interface (docs/agent.md,
// "Detectors"): its name in FAULTLINE_DETECTORS, its bit, its install (0,
// or -1 with errno) and its uninstall. One whose install fails is left out
// with one line. The crash detector's install is not called from here:
// install() puts it in first by hand (its handlers, then every thread's
// alternate stack), and its failure fails the install. The cpu detector
// comes after hang and launch, whose state it reads.
static const struct {
    const char *name;
    unsigned bit;
    int (*install)(void);
    void (*uninstall)(void);
} k_detectors[] = {
    {"crash", FL_DETECTOR_CRASH, 0, fl_crash_uninstall},
    {"cxx_exception", FL_DETECTOR_CXX_EXCEPTION, fl_cxx_exception_install, fl_cxx_exception_uninstall},
    {"hang", FL_DETECTOR_HANG, fl_hang_install, fl_hang_uninstall},
    {"memory", FL_DETECTOR_MEMORY, memory_install, fl_memory_monitor_uninstall},
    {"launch", FL_DETECTOR_LAUNCH, fl_launch_install, fl_launch_uninstall},
    {"fds", FL_DETECTOR_FDS, fl_fds_install, fl_fds_uninstall},
    {"threads", FL_DETECTOR_THREADS, fl_threads_detector_install, fl_threads_detector_uninstall},
    {"cpu", FL_DETECTOR_CPU, fl_cpu_install, fl_cpu_uninstall},
};

long fl_parse_detectors(const char *list, char *bad, int cap) {
    if (!list || !*list) return FL_DETECTORS_DEFAULT;
    if (strcmp(list, "all") == 0) return FL_DETECTORS_ALL;
    // The malloc shim's detectors are accepted and ignored here: the shim
    // reads the same variable.
    if (fl_detector_list_unknown(list, bad, cap)) return -1;
    long bits = 0;
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        for (unsigned i = 0; i < sizeof k_detectors / sizeof k_detectors[0]; i++)
            if (strlen(k_detectors[i].name) == len && strncmp(k_detectors[i].name, p, len) == 0) bits |= k_detectors[i].bit;
        p = e ? e + 1 : p + len;
    }
    return bits;
}

// The malloc shim reads FAULTLINE_DETECTORS and FAULTLINE_MAX_FRAMES too
// and names a bad value in one line whichever library starts first; with
// it loaded the agent keeps quiet about them, so a typo gets one line, not
// two differently worded ones.
static int malloc_shim_loaded(void) { return dlsym(RTLD_DEFAULT, "faultline_shim_describe_fault") != 0; }

// -1 when the report directory's path does not fit in PATH_MAX: cut short,
// it named another directory, which was created and written into.
static int resolve_config(const faultline_options *o, fl_config *c) {
    int shim = malloc_shim_loaded();
    const char *dir = o && o->report_dir ? o->report_dir : fl_option_value(FL_OPT_REPORT_DIR);
    if (dir && strlen(dir) >= sizeof c->report_dir) return -1;
    // Under secure execution the default is relative to the caller's
    // working directory, as much the caller's choice as the variable: no
    // directory then (reports on stderr), unless the program named one.
    int none = !(o && o->report_dir) && fl_option_secure();
    fl_strlcpy(c->report_dir, dir && *dir ? dir : none ? "" : fl_option_at(FL_OPT_REPORT_DIR)->default_text, sizeof c->report_dir);
    c->max_frames = o && o->max_frames ? o->max_frames : fl_env_int_quietly(FL_OPT_MAX_FRAMES, shim);
    if (c->max_frames > FL_MAX_FRAMES) c->max_frames = FL_MAX_FRAMES;
    c->thread_timeout_ms = o && o->thread_timeout_ms ? o->thread_timeout_ms : fl_env_int(FL_OPT_THREAD_TIMEOUT_MS);
    c->max_threads = o && o->max_threads ? o->max_threads : fl_env_int(FL_OPT_MAX_THREADS);
    c->capture_stderr = o && o->capture_stderr ? 1 : fl_env_int(FL_OPT_CAPTURE_STDERR);
    c->sample_signal = o && o->sample_signal ? o->sample_signal : fl_env_int(FL_OPT_SAMPLE_SIGNAL);
    c->crash_deadline_ms = fl_env_int(FL_OPT_CRASH_DEADLINE_MS);
    char bad[64];
    long d = fl_parse_detectors(fl_option_value(FL_OPT_DETECTORS), bad, sizeof bad);
    if (d < 0) {
        // With the shim loaded, the shim says it (and removes the variable).
        if (!shim) {
            fl_log_printf("faultline: FAULTLINE_DETECTORS names unknown detector '%s'; known: crash, cxx_exception, hang, memory, cpu, fds, threads, launch, use_after_free, leaks; using the default (all but fds)\n", bad);
            fl_option_said("FAULTLINE_DETECTORS");
        }
        d = FL_DETECTORS_DEFAULT;
    }
    c->detectors = (unsigned)d;
    return 0;
}

static void after_fork_child(void) { fl_report_reseed(); }

static void install_detectors(unsigned bits) {
    for (unsigned i = 0; i < sizeof k_detectors / sizeof k_detectors[0]; i++)
        if ((bits & k_detectors[i].bit) && k_detectors[i].install && k_detectors[i].install() != 0)
            fl_log_printf("faultline: %s detector not installed: %s\n", k_detectors[i].name, strerror(errno));
}

/// Set while an agent is installed in the process image, so a second copy
/// of the agent — a linked program run under `faultline exec` — steps aside
/// instead of reporting every crash twice. The value names the image: the
/// pid and the kernel's AT_RANDOM bytes, which are new at every exec (an
/// exec'd program keeps the pid and the environment but must install).
#define FL_MARKER_ENV "FAULTLINE_AGENT_IMAGE"

static void image_marker(char *buf, size_t cap) {
    const unsigned char *r = (const unsigned char *)getauxval(AT_RANDOM);
    unsigned long long bits = 0;
    for (int i = 0; r && i < 8; i++) bits = bits << 8 | r[i];
    snprintf(buf, cap, "%ld:%016llx", (long)getpid(), bits);
}

static int other_copy_installed(void) {
    char mine[64];
    image_marker(mine, sizeof mine);
    const char *v = fl_option_value(FL_OPT_AGENT_IMAGE);
    return v && strcmp(v, mine) == 0;
}

// FAULTLINE_TRACE_CHILDREN=no (valgrind's --trace-children=no): this
// process keeps the agent and the shim, the programs it starts do not, so
// Faultline's libraries leave LD_PRELOAD. At start, before the program's
// threads: setenv is safe then.
static void untrace_children(void) {
    const char *v = getenv("FAULTLINE_TRACE_CHILDREN"), *pre = getenv("LD_PRELOAD");
    if (!v || strcmp(v, "no") != 0 || !pre) return;
    char kept[4096];
    size_t n = 0;
    for (const char *p = pre; *p;) {
        size_t len = strcspn(p, ": ");
        int ours = (len && memmem(p, len, "libFaultlineAgentPreload", 24)) || (len && memmem(p, len, "libFaultlineMallocShim", 22));
        if (len && !ours && n + len + 2 < sizeof kept) {
            if (n) kept[n++] = ':';
            memcpy(kept + n, p, len);
            n += len;
        }
        p += len;
        while (*p == ':' || *p == ' ') p++;
    }
    kept[n] = 0;
    if (n) setenv("LD_PRELOAD", kept, 1);
    else unsetenv("LD_PRELOAD");
}

// Phase 1: the report folder, shared with the malloc shim, and the reserve
// fd. `dir_optional`: one this process cannot write into sends reports to
// stderr instead of failing the install. 0, or -1 with g_error set.
static int open_report_dir(fl_config *c, int dir_optional) {
    // Quiet when the malloc shim, started first, said it already: it sets
    // FL_REPORT_DIR_REFUSED_ENV, as this does below for the shim and children.
    int no_dir = !c->report_dir[0];  // secure execution: reports on stderr, said by fl_option_value
    int dirfd = no_dir ? -1 : fl_report_dir_open(c->report_dir, !dir_optional);
    if (dirfd < 0 && !dir_optional && !no_dir) {
        int e = errno;
        snprintf(g_error, sizeof g_error, "cannot write into report directory %s: %s", c->report_dir, strerror(e));
        errno = e;
        return -1;
    }
    if (dirfd < 0 && !no_dir) setenv(FL_REPORT_DIR_REFUSED_ENV, c->report_dir, 1);
    fl_report_set_dir(dirfd, no_dir ? 0 : c->report_dir);
    // The malloc shim opened the same directory: one fd for both.
    int (*share)(int (*)(void)) = (int (*)(int (*)(void)))dlsym(RTLD_DEFAULT, "faultline_shim_share_report_dir");
    if (share) share(fl_report_dir);
    // One fd kept for reports once the program has used up its own
    // (fd_transient.h); the malloc shim's opens draw on the same one.
    fl_fd_reserve_take();
    typedef int (*share_fds_fn)(int (*)(int, const char *, int, mode_t), void (*)(int));
    share_fds_fn share_fds = (share_fds_fn)dlsym(RTLD_DEFAULT, "faultline_shim_share_fds");
    if (share_fds) share_fds(fl_openat_high, fl_close_high);
    return 0;
}

// Phase 2: libunwind and the sample signal every stack capture needs. 0,
// or -1 with g_error set.
static int prepare_stacks(const fl_config *c, int valgrind) {
    fl_unwinder_init();
    // libunwind's pipe is let go after every unwind, the warm-up's first,
    // and the malloc shim's (unwind_pipe.h): a process holds no fd of
    // libunwind's between them.
    fl_unwinder_set_walk_hooks(faultline_unwind_walk_begin, faultline_unwind_walk_end);
    typedef void (*walk_hooks_fn)(void (*)(void), void (*)(void));
    walk_hooks_fn shim_walks = (walk_hooks_fn)dlsym(RTLD_DEFAULT, "faultline_shim_set_unwind_walk_hooks");
    if (shim_walks) shim_walks(faultline_unwind_walk_begin, faultline_unwind_walk_end);
    // Warming libunwind probes pages with write(2), which valgrind calls
    // an error (docs/valgrind.supp): under valgrind it waits for a crash.
    if (!valgrind) fl_unwinder_warm_thread();
    if (fl_threads_init(c->sample_signal) != 0) {
        snprintf(g_error, sizeof g_error, "cannot install the sampling signal %d: %s", c->sample_signal, strerror(errno));
        return -1;
    }
    // The agent's threads answer credential-mirror requests on it too.
    fl_cred_mirror_init(c->sample_signal, "FAULTLINE_SAMPLE_SIGNAL", fl_threads_handler_in_place);
    // A parent (Foundation.Process does this) may have started us with most
    // signals blocked; the crash and sample signals must get through.
    fl_threads_unblock_agent_signals();
    return 0;
}

// Phase 3: the crash detector, before the others, whose threads then start
// with an alternate stack like any new thread and are not among the
// "existing" threads asked for one. 0, or -1 with g_error set.
static int install_crash(void) {
    if (fl_crash_install() != 0) {
        snprintf(g_error, sizeof g_error, "cannot install crash handlers: %s", strerror(errno));
        return -1;
    }
    fl_altstack_install_current();
    fl_altstack_enable_for_new_threads();
    // Only threads that exist now need asking; a preloaded agent's
    // constructor almost always runs in the program's one thread, where
    // listing /proc/self/task and looking up the other image's threads
    // found nothing to ask (issue 29: about 1 % of a short process).
    if (fl_program_threads() != 1) fl_altstack_install_existing();
    // A thread that blocks SIGSEGV would die by it without a report.
    fl_fault_mask_keep_open();
    return 0;
}

// Installs the agent. `dir_optional`: a report directory this process
// cannot write into sends its reports to stderr, with one line (the
// preloaded agent), instead of failing the install (faultline_install).
static int install_here(const faultline_options *options, int dir_optional) {
    if (g_installed) return 0;
    fl_log_init();
    if (other_copy_installed()) return 0;
    fl_config *c = &fl_agent_config;
    if (resolve_config(options, c) != 0) {
        snprintf(g_error, sizeof g_error, "the report directory's path is longer than %d bytes (use a shorter one): %s",
                 (int)sizeof c->report_dir - 1, options && options->report_dir ? options->report_dir : fl_option_value(FL_OPT_REPORT_DIR));
        errno = ENAMETOOLONG;
        return -1;
    }
    // Under valgrind only what starts no thread (under_valgrind.h).
    int valgrind = fl_under_valgrind();
    if (valgrind) c->detectors &= FL_DETECTOR_CRASH | FL_DETECTOR_CXX_EXCEPTION;
    if (open_report_dir(c, dir_optional) != 0) return -1;
    fl_annotate_install();
    if (prepare_stacks(c, valgrind) != 0) return -1;
    if ((c->detectors & FL_DETECTOR_CRASH) && install_crash() != 0) return -1;
    // Under a low fd limit, what needs fds held for the process's life
    // stays off rather than take the program's last ones.
    int low_limit = fl_fd_low_limit();
    int memory = (c->detectors & FL_DETECTOR_MEMORY) && !low_limit;
    if (low_limit) fl_fd_limit_note(low_limit, c->detectors & FL_DETECTOR_MEMORY);
    // Holds no fd, so a low limit does not turn it off.
    if (c->capture_stderr) fl_stderr_capture_start();
    install_detectors(memory ? c->detectors : c->detectors & ~(unsigned)FL_DETECTOR_MEMORY);
    static int once;  // a reinstall registers nothing twice
    if (!once++) pthread_atfork(0, 0, after_fork_child);
    char marker[64];
    image_marker(marker, sizeof marker);
    setenv(FL_MARKER_ENV, marker, 1);
    untrace_children();
    // Last: after the agent's own setenv calls (environ_pin.h).
    fl_environ_pin();
    g_installed = 1;
    return 0;
}

// With the malloc shim loaded after this image, the install's blocks are
// recorded without a stack (faultline_shim_stackless, shim_untracked.c):
// the FILE fopencookie makes for the stderr tee came from libc code
// without frame pointers, and its stack was a libunwind walk of 24 steps,
// 96 sigprocmask calls under libunwind's global cache lock, in every
// process. Looked up here: this image's FL_NEXT slots may not be filled yet.
static int install(const faultline_options *options, int dir_optional) {
    void (*stackless)(int) = fl_symbol_after((const void *)install, "faultline_shim_stackless")
                                 ? (void (*)(int))dlsym(RTLD_NEXT, "faultline_shim_stackless") : 0;
    if (stackless) stackless(1);
    int r = install_here(options, dir_optional);
    if (stackless) stackless(0);
    return r;
}

int faultline_install(const faultline_options *options) { return install(options, 0); }

int faultline_uninstall(void) {
    if (!g_installed) return 0;
    // Reverse install order: the crash detector, installed first, last.
    for (unsigned i = sizeof k_detectors / sizeof k_detectors[0]; i-- > 0;)
        if (fl_agent_config.detectors & k_detectors[i].bit) k_detectors[i].uninstall();
    // So that a later faultline_install is not taken for another copy's.
    unsetenv(FL_MARKER_ENV);
    g_installed = 0;
    return 0;
}

void faultline_set_crash_callback(faultline_crash_callback callback, void *context) {
    fl_crash_set_callback(callback, context);
}

void faultline_writer_add_string(faultline_writer *writer, const char *key, const char *value) {
    fl_json_string(writer, key, value);
}

__attribute__((constructor)) static void faultline_auto_install(void) {
    fl_launch_note_constructor();
    const char *dir = fl_option_value(FL_OPT_REPORT_DIR);
    if (!dir) return;
    fl_log_init();
    // Only the preloaded copy installs itself; a program that links the
    // agent calls faultline_install when it is ready.
    Dl_info info;
    if (!dladdr((void *)faultline_auto_install, &info) || !info.dli_fname ||
        !strstr(info.dli_fname, "libFaultlineAgentPreload")) return;
    // Set but empty (`FAULTLINE_REPORT_DIR=$DIR` with DIR unset): someone
    // preloaded the agent to use it, so say why it does nothing rather than
    // pick a directory in whatever the program's working directory is. The
    // shim says nothing about it (an empty value sends its reports to
    // stderr), so this is the only line.
    if (!*dir) {
        fl_log_printf("faultline: FAULTLINE_REPORT_DIR is set but empty, so the agent is not installed%s; "
                        "set it to the directory for reports, or unset it to run without the agent\n",
                malloc_shim_loaded() ? " (the malloc shim's reports go to stderr)" : "");
        return;
    }
    // A program the user keeps Faultline out of (--trace-children-skip).
    if (fl_exe_matches_env("FAULTLINE_TRACE_CHILDREN_SKIP", 0)) return;
    if (install(0, 1) != 0)
        fl_log_printf("faultline: agent not installed: %s\n", g_error);
}
