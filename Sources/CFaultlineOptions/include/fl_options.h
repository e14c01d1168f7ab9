// Every FAULTLINE_* variable the agent, the malloc shim and the runner read,
// in one table (as mimalloc's options.c and compiler-rt's
// sanitizer_flags.inc): name, type, default, range, owner, and one line of
// doc. The agent and the shim read their variables through it, `faultline
// doctor --options` prints it, and a test holds it against the docs.
#ifndef FL_OPTIONS_H
#define FL_OPTIONS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What a variable holds.
typedef enum {
    FL_OPT_INT,     ///< a decimal number in lo...hi
    FL_OPT_BOOL,    ///< 0 or 1
    FL_OPT_SIZE,    ///< bytes; K, M and G multiply by 1024, 1024^2, 1024^3
    FL_OPT_SIGNAL,  ///< a signal number; default, lo and hi count from SIGRTMIN
    FL_OPT_FLAG,    ///< set (any value) or unset
    FL_OPT_WORD,    ///< one of the words its doc names
    FL_OPT_LIST,    ///< a comma list
    FL_OPT_TEXT,    ///< free text in the format its doc gives
    FL_OPT_PATH,    ///< a file or folder
} fl_option_type;

/// Flags of an option.
enum {
    FL_OPT_OUTPUT = 1,    ///< names a path or where output goes: ignored under secure execution
    FL_OPT_INTERNAL = 2,  ///< set by Faultline itself for the processes it starts, not by users
};

/// The rows. NUM(ID, TYPE, DEFAULT, LO, HI, OWNER, FLAGS, DOC) for numbers,
/// TEXT(ID, TYPE, DEFAULT, OWNER, FLAGS, DOC) for the rest; the variable is
/// FAULTLINE_<ID>. OWNER says who reads it.
#define FL_OPTION_ROWS(NUM, TEXT) \
    /* where reports go, what runs */ \
    TEXT(REPORT_DIR, FL_OPT_PATH, "faultline-reports", "agent, shim", FL_OPT_OUTPUT, "folder reports are written into (created 0700); the shim alone prints them on stderr when unset") \
    TEXT(DETECTORS, FL_OPT_LIST, "all", "agent, shim", 0, "detectors on: crash, cxx_exception, hang, memory, cpu, fds, threads, launch, use_after_free, leaks, shim; all or none (unset: all but fds)") \
    NUM(MAX_FRAMES, FL_OPT_INT, 128, 1, 256, "agent, shim", 0, "frames kept per thread in a report") \
    /* crash */ \
    NUM(THREAD_TIMEOUT_MS, FL_OPT_INT, 50, 1, 10000, "agent", 0, "how long a crash waits for each other thread's stack") \
    NUM(MAX_THREADS, FL_OPT_INT, 256, 1, 1024, "agent", 0, "most threads listed in a report") \
    NUM(CAPTURE_STDERR, FL_OPT_BOOL, 0, 0, 1, "agent", 0, "keep the last 4 KiB the program wrote to fd 2 for its reports (fd 2 is left alone)") \
    TEXT(ANNOTATIONS, FL_OPT_TEXT, "", "agent", 0, "KEY=VALUE lines attached to every report, as faultline_annotate") \
    TEXT(PHASE, FL_OPT_TEXT, "", "agent", 0, "the phase at install, as faultline_set_phase") \
    TEXT(LOG, FL_OPT_TEXT, "", "agent, shim", FL_OPT_OUTPUT, "where Faultline's own lines go: fd:N or an absolute path (file or FIFO); unset: fd 2") \
    TEXT(TRACE_CHILDREN, FL_OPT_WORD, "yes", "agent", 0, "no: Faultline's libraries leave LD_PRELOAD at install, so the programs this one starts are not watched") \
    TEXT(TRACE_CHILDREN_SKIP, FL_OPT_LIST, "", "agent, shim", 0, "patterns (* and ?) of executable paths that run without the agent, the shim passing through") \
    NUM(SAMPLE_SIGNAL, FL_OPT_SIGNAL, 8, 0, 30, "agent", 0, "real-time signal that asks a thread for its stack") \
    NUM(CRASH_DEADLINE_MS, FL_OPT_INT, 10000, 0, 3600000, "agent", 0, "longest one stage of the crash handler may make no progress (0: no deadline)") \
    /* C++ exceptions */ \
    NUM(CXX_THROW_FRAMES, FL_OPT_INT, 32, 0, 64, "agent", 0, "frames recorded per throw") \
    NUM(CXX_DEMANGLE, FL_OPT_BOOL, 1, 0, 1, "agent", 0, "demangle the exception type in the terminate handler") \
    /* hangs */ \
    NUM(HANG_THRESHOLD_MS, FL_OPT_INT, 2000, 250, 3600000, "agent", 0, "main thread unresponsive this long is a hang report") \
    NUM(HANG_SAMPLE_MS, FL_OPT_INT, 50, 10, 1000, "agent", 0, "watchdog tick, ping and sampling interval") \
    NUM(HANG_SAMPLES, FL_OPT_INT, 30, 1, 100, "agent", 0, "stack samples kept in the ring") \
    NUM(DEADLOCK_THRESHOLD_MS, FL_OPT_INT, 5000, 0, 3600000, "agent", 0, "blocked on a lock cycle this long is a deadlock report (0: off)") \
    NUM(DEADLOCK_ABORT, FL_OPT_BOOL, 1, 0, 1, "agent", 0, "abort the process after a deadlock report") \
    NUM(HANG_DEBUG, FL_OPT_BOOL, 0, 0, 1, "agent", 0, "1: one line per examined watchdog tick on stderr") \
    /* memory limits */ \
    NUM(MEMORY_INTERVAL_MS, FL_OPT_INT, 100, 5, 60000, "agent", 0, "how often memory usage and limit are read") \
    TEXT(MEMORY_THRESHOLDS, FL_OPT_TEXT, "50,75,90,95", "agent", 0, "ascending percentages of the limit that write a breadcrumb (at most 6)") \
    NUM(MEMORY_TOP_STACKS, FL_OPT_INT, 5, 0, 8, "agent", 0, "allocation stacks per breadcrumb and warning") \
    TEXT(MEMORY_PRESSURE, FL_OPT_WORD, "medium", "agent", 0, "cgroup v1 pressure level that makes a warning: low, medium, critical, off") \
    TEXT(MEMORY_PSI, FL_OPT_TEXT, "some 150000 2000000", "agent", 0, "cgroup v2 PSI trigger 'some|full STALL_US WINDOW_US', or off") \
    NUM(MEMORY_WARNINGS, FL_OPT_INT, 3, 0, 100, "agent", 0, "most memory_warning reports per process") \
    NUM(MEMORY_FOLLOW_FORK, FL_OPT_BOOL, 1, 0, 1, "agent", 0, "restart the memory monitor in forked children") \
    /* resources (docs/resources.md) */ \
    NUM(CPU_THRESHOLD, FL_OPT_INT, 80, 1, 100, "agent", 0, "percent of one core a thread must use over the window to be a cpu_hog") \
    NUM(CPU_WINDOW_MS, FL_OPT_INT, 3000, 250, 3600000, "agent", 0, "how long a thread's share must hold for a cpu_hog report") \
    NUM(CPU_INTERVAL_MS, FL_OPT_INT, 250, 10, 10000, "agent", 0, "how often every thread's CPU time is read") \
    NUM(CPU_SAMPLE_MS, FL_OPT_INT, 50, 10, 1000, "agent", 0, "stack sampling interval of a thread in a CPU episode") \
    NUM(CPU_DEBUG, FL_OPT_BOOL, 0, 0, 1, "agent", 0, "1: one line per check for each thread above half the CPU threshold") \
    NUM(FD_WARN_PERCENT, FL_OPT_INT, 90, 1, 100, "agent", 0, "recorded descriptors, in percent of the soft RLIMIT_NOFILE, that make an fd_pressure report") \
    NUM(THREAD_GROWTH, FL_OPT_INT, 256, 0, 8192, "agent", 0, "live threads at the first thread_growth report, again at each doubling (0: off)") \
    NUM(LAUNCH_THRESHOLD, FL_OPT_INT, 5000, 0, 3600000, "agent", 0, "a launch longer than this many ms is a launch report (0: never)") \
    /* the malloc shim */ \
    NUM(QUARANTINE_BYTES, FL_OPT_SIZE, 16ll << 20, 0, 1ll << 40, "shim", 0, "memory the quarantine of freed blocks may hold") \
    NUM(QUARANTINE_BIG_BYTES, FL_OPT_SIZE, 2ll << 20, 0, 1ll << 40, "shim", 0, "bytes freed blocks of 1 KiB to 64 KiB may hold in the quarantine: past it the oldest leaves early (0: none does)") \
    NUM(QUARANTINE_COUNT, FL_OPT_SIZE, 65536, 0, 1ll << 28, "shim", 0, "blocks the quarantine may hold (K and M multiply)") \
    NUM(SCRIBBLE_LIMIT, FL_OPT_SIZE, 4096, 0, 1ll << 40, "shim", 0, "bytes of each freed block set to 0x55 and verified when it leaves") \
    NUM(SCRIBBLE_SAMPLE, FL_OPT_INT, 2, 0, 1024, "shim", 0, "64-byte chunks of a freed block's scribble verified as it leaves, besides its first 256 bytes and last 64 (0: all; the exit check reads all)") \
    NUM(FILL_LIMIT, FL_OPT_SIZE, 256, 0, 1ll << 40, "shim", 0, "bytes of each new block (not calloc's) set to 0xAA") \
    NUM(MALLOC_STACKS, FL_OPT_BOOL, 1, 0, 1, "shim", 0, "record allocation and free stacks") \
    NUM(MALLOC_STACK_DEPTH, FL_OPT_INT, 16, 1, 64, "shim", 0, "frames kept per allocation or free stack") \
    TEXT(MALLOC_UNWINDER, FL_OPT_WORD, "auto", "shim", 0, "how allocation stacks are taken: auto, fp, libunwind") \
    NUM(STACK_DEPOT_BYTES, FL_OPT_SIZE, 64ll << 20, 1ll << 16, 1ll << 34, "shim", 0, "address space reserved for the stack depot") \
    NUM(HALT_ON_ERROR, FL_OPT_BOOL, 1, 0, 1, "shim", 0, "end the process after a double_free, invalid_free or write_after_free report") \
    NUM(ERROR_EXITCODE, FL_OPT_INT, 23, 1, 255, "shim", 0, "the exit code of a halt") \
    NUM(CHECK_AT_EXIT, FL_OPT_BOOL, 1, 0, 1, "shim", 0, "verify every quarantined block when the process exits") \
    NUM(ALLOC_DEALLOC_MISMATCH, FL_OPT_BOOL, 1, 0, 1, "shim", 0, "report a block released by the wrong family of function") \
    NUM(NEW_DELETE_TYPE_MISMATCH, FL_OPT_BOOL, 1, 0, 1, "shim", 0, "report a sized or aligned delete that does not fit its new") \
    NUM(MAX_HEAP_REPORTS, FL_OPT_INT, 100, 1, 1000000, "shim", 0, "heap error reports per process") \
    NUM(SHIM_STATS, FL_OPT_BOOL, 0, 0, 1, "shim", 0, "one line of quarantine and depot figures on stderr at exit") \
    TEXT(SUPPRESSIONS, FL_OPT_PATH, "", "shim", FL_OPT_OUTPUT, "a file of KIND:PATTERN lines naming errors and leaks not to report") \
    TEXT(LEAK_SUPPRESSIONS, FL_OPT_PATH, "", "shim", FL_OPT_OUTPUT, "no longer read: FAULTLINE_SUPPRESSIONS takes the same file") \
    TEXT(GUARD, FL_OPT_TEXT, "off", "shim", 0, "guard pages: off, all (every block), sample:N (one block in N)") \
    TEXT(GUARD_SIDE, FL_OPT_WORD, "right", "shim", 0, "where a guarded block's guard page is: right, left") \
    NUM(GUARD_ALIGN, FL_OPT_INT, 16, 1, 16, "shim", 0, "alignment of a guarded block against its guard page: 16 (malloc's), 8, 4, 2 or 1 (every byte past the end faults)") \
    NUM(GUARD_SLOTS, FL_OPT_SIZE, 256, 1, 65536, "shim", 0, "slots of the pool of FAULTLINE_GUARD=sample:N") \
    /* leaks */ \
    NUM(LEAK_TRACKING, FL_OPT_BOOL, 1, 0, 1, "shim", 0, "keep live-block records (default: when the detectors include leaks or memory)") \
    NUM(LEAK_CHECK_AT_EXIT, FL_OPT_BOOL, 1, 0, 1, "shim", 0, "scan for leaks when the process exits (default: when the detectors include leaks)") \
    NUM(LEAK_SHOW_REACHABLE, FL_OPT_BOOL, 0, 0, 1, "shim", 0, "list still-reachable groups too") \
    NUM(GEN_SUPPRESSIONS, FL_OPT_BOOL, 0, 0, 1, "shim", 0, "print the suppression line that silences each leak group and heap error") \
    NUM(LEAK_SIGNAL, FL_OPT_SIGNAL, 11, 0, 30, "shim", 0, "a signal that runs a leak check while the program runs") \
    NUM(LEAK_STOP_SIGNAL, FL_OPT_SIGNAL, 10, 0, 30, "shim", 0, "the directed signal that parks the other threads during a scan") \
    NUM(LEAK_STOP_TIMEOUT_MS, FL_OPT_INT, 500, 1, 60000, "shim", 0, "how long a scan waits for the other threads to park") \
    NUM(LEAK_MAX_GROUPS, FL_OPT_INT, 50, 1, 100000, "shim", 0, "leak groups listed per report") \
    NUM(LEAK_GROWTH_MS, FL_OPT_INT, 0, 0, 86400000, "shim", 0, "growth mode: snapshot interval of every stack's live bytes (0: off)") \
    NUM(LEAK_GROWTH_SNAPSHOTS, FL_OPT_INT, 5, 2, 1000, "shim", 0, "growing snapshots in a row that make a growth report") \
    NUM(LEAK_GROWTH_MIN_BYTES, FL_OPT_SIZE, 1024, 0, 1ll << 40, "shim", 0, "growth over the window that makes a growth report") \
    TEXT(LEAK_DEBUG_ROOTS, FL_OPT_FLAG, "", "shim", 0, "set: every root range of 4 KiB or more and every short read on stderr") \
    NUM(LEAK_INHERITED, FL_OPT_BOOL, 0, 0, 1, "shim", 0, "a forked child reports the blocks allocated before the fork too") \
    TEXT(LEAK_CHECK_SKIP, FL_OPT_LIST, "", "shim", 0, "patterns (* and ?) of executable paths with no leak tracking, exit leak check, fd or thread leak check (faultline exec: the system's tool folders)") \
    /* set by Faultline for the processes it starts */ \
    TEXT(AGENT_IMAGE, FL_OPT_PATH, "", "agent", FL_OPT_INTERNAL, "the agent library already in the process (a linked agent and a preloaded one)") \
    TEXT(LAUNCH_EXEC_NS, FL_OPT_TEXT, "", "agent", FL_OPT_INTERNAL, "when faultline exec started the program (CLOCK_MONOTONIC ns), for the launch detector") \
    TEXT(FD_LIMIT_NOTED, FL_OPT_FLAG, "", "agent", FL_OPT_INTERNAL, "the line about a lowered fd limit was printed in this process tree") \
    TEXT(REPORT_DIR_REFUSED, FL_OPT_FLAG, "", "agent, shim", FL_OPT_INTERNAL, "the line about an unwritable report folder was printed in this process tree") \
    /* the runner (faultline run) */ \
    NUM(CGROUP_POLL_MS, FL_OPT_INT, 10, 1, 1000, "runner", 0, "memory-limit tracker poll interval") \
    TEXT(RUNNER_KILL_AFTER_MS, FL_OPT_TEXT, "", "runner", 0, "milliseconds, in a scenario's env: the runner sends the victim SIGKILL after them")

/// One id per row: FL_OPT_<ID>.
typedef enum {
#define FL_OPTION_ID_NUM(id, ...) FL_OPT_##id,
#define FL_OPTION_ID_TEXT(id, ...) FL_OPT_##id,
    FL_OPTION_ROWS(FL_OPTION_ID_NUM, FL_OPTION_ID_TEXT)
#undef FL_OPTION_ID_NUM
#undef FL_OPTION_ID_TEXT
    FL_OPT_COUNT
} fl_option_id;

/// Compile-time defaults and bounds of the number rows that fit in an int:
/// FL_OPT_DEFAULT_<ID>, FL_OPT_LO_<ID>, FL_OPT_HI_<ID>, for static initial values and
/// for asserting that a capacity holds the range.
#define FL_OPTION_CLAMP(v) ((v) > 0x7fffffffll ? 0x7fffffff : (int)(v))
enum {
#define FL_OPTION_CONST_NUM(id, type, def, lo, hi, ...) FL_OPT_DEFAULT_##id = FL_OPTION_CLAMP(def), FL_OPT_LO_##id = FL_OPTION_CLAMP(lo), FL_OPT_HI_##id = FL_OPTION_CLAMP(hi),
#define FL_OPTION_CONST_TEXT(id, ...)
    FL_OPTION_ROWS(FL_OPTION_CONST_NUM, FL_OPTION_CONST_TEXT)
#undef FL_OPTION_CONST_NUM
#undef FL_OPTION_CONST_TEXT
};

/// One row as the table keeps it.
typedef struct {
    const char *name;          ///< FAULTLINE_…
    fl_option_type type;
    long long number;          ///< default of a number (signals: from SIGRTMIN)
    long long lo, hi;          ///< range of a number
    const char *default_text;  ///< default of the rest ("" none)
    const char *owner;         ///< who reads it: agent, shim, runner
    int flags;                 ///< FL_OPT_OUTPUT, FL_OPT_INTERNAL
    const char *doc;           ///< one line
} fl_option_info;

/// Rows in the table.
int fl_option_count(void);

/// Row `id` (0...fl_option_count()-1), or NULL.
const fl_option_info *fl_option_at(int id);

/// The variable's value, or NULL when unset. Every read of a FAULTLINE_*
/// variable by the agent and the shim goes through here. Under secure
/// execution (fl_option_secure) an FL_OPT_OUTPUT variable reads as unset,
/// and the first such read that finds one set says in one line on stderr
/// which are ignored. No allocation.
const char *fl_option_value(fl_option_id id);

/// 1 under secure execution (the kernel's AT_SECURE: a set-user-ID or
/// set-group-ID program, or one that gained file capabilities, started by
/// a user it does not run as), unless the real uid is root. The caller's
/// environment is then not trusted to say where files go or output is
/// written. No allocation.
int fl_option_secure(void);

/// Parses option `id`'s number (its type's syntax) into `*out`: 1 when
/// set and valid, 0 when unset or empty (`*out` is then its default), -1
/// when invalid or out of range (`*out` is its default; the caller names
/// the value). Signals are absolute numbers in `*out`. No allocation.
int fl_option_number(fl_option_id id, long long *out);

/// The default of number option `id` (signals: absolute), lo and hi.
long long fl_option_default(fl_option_id id);
long long fl_option_lo(fl_option_id id);
long long fl_option_hi(fl_option_id id);

#ifdef __cplusplus
}
#endif
#endif
