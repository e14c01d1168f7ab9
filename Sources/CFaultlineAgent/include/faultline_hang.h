/// Faultline agent — main-thread hang and deadlock detector, public C API.
///
/// The detector runs when `FAULTLINE_DETECTORS` includes `hang` (the default
/// `all` does). A watchdog thread decides every sampling interval whether
/// the watched thread is responsive, in one of three modes:
///
/// - ping: a pinger registered with `faultline_hang_set_pinger` (the Swift
///   `HangWatchdog` posts to `DispatchQueue.main`) is called each interval;
///   the ping's handler calls `faultline_heartbeat`.
/// - heartbeat: the program's own loop calls `faultline_heartbeat` each
///   iteration.
/// - inferred: neither; the watchdog reads the main thread's state from
///   `/proc/self/task/<pid>/{syscall,status}`.
///
/// See docs/hangs.md for the rules, the options and the report kinds.
#ifndef FAULTLINE_HANG_H
#define FAULTLINE_HANG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef FAULTLINE_API
#define FAULTLINE_API __attribute__((visibility("default")))
#endif

/// Tells the watchdog the calling thread is responsive: one clock read and
/// two relaxed atomic stores. Call it once per iteration of an event loop.
/// The first call switches the detector to heartbeat mode and makes the
/// calling thread the watched one. Safe to call before install (it is then
/// remembered) and from a signal handler.
///
/// A C program that should also run without the agent can declare it weak:
/// `extern void faultline_heartbeat(void) __attribute__((weak));` and call it
/// when the address is non-null (the preloaded agent provides it).
FAULTLINE_API void faultline_heartbeat(void);

/// A pinger: asks the watched thread, asynchronously, to call
/// `faultline_heartbeat` (for example by posting a block to the main queue).
/// Called on the watchdog thread; must not block.
typedef void (*faultline_hang_pinger)(void *context);

/// Sets (or clears, with NULL) the pinger, switching to ping mode. Returns 0,
/// or -1 when the hang detector is not running (agent not installed or
/// `hang` not in `FAULTLINE_DETECTORS`); `faultline_hang_last_error` says why.
FAULTLINE_API int faultline_hang_set_pinger(faultline_hang_pinger pinger, void *context);

/// Options of the hang detector. Zero fields keep the value in force (from
/// the environment or the defaults).
typedef struct faultline_hang_options {
    /// A hang is reported after the watched thread has been unresponsive
    /// this long (default 2000, at least 250; `FAULTLINE_HANG_THRESHOLD_MS`).
    int threshold_ms;
    /// Watchdog tick and stack sampling interval (default 50, 10...1000;
    /// `FAULTLINE_HANG_SAMPLE_MS`).
    int sample_interval_ms;
    /// A thread blocked on a futex this long is reported as deadlocked even
    /// without a lock cycle (default 5000; -1 turns the rule off;
    /// `FAULTLINE_DEADLOCK_THRESHOLD_MS`, where 0 turns it off).
    int deadlock_threshold_ms;
    /// 1: abort the process after a deadlock report (default); -1: keep it
    /// running (`FAULTLINE_DEADLOCK_ABORT=0`).
    int deadlock_abort;
} faultline_hang_options;

/// Changes the options of the running detector (or of the one about to be
/// installed). Returns 0, or -1 naming the bad value in
/// `faultline_hang_last_error`.
FAULTLINE_API int faultline_hang_configure(const faultline_hang_options *options);

/// Counters of the watchdog's own work, for benchmarks and diagnostics.
typedef struct faultline_hang_stats {
    /// 0 not running, 1 inferred, 2 heartbeat, 3 ping.
    int mode;
    /// Watchdog ticks so far.
    uint64_t ticks;
    /// Reads of the watched thread's /proc state, and their total time.
    uint64_t probes;
    uint64_t probe_ns;
    /// Stacks taken by directed signal, their total and largest time.
    uint64_t samples;
    uint64_t sample_ns;
    uint64_t sample_max_ns;
    /// Samples counted without interrupting the thread (it had not run
    /// since the previous one).
    uint64_t samples_reused;
    /// Pings sent.
    uint64_t pings;
    /// CPU time the watchdog thread has used.
    uint64_t watchdog_cpu_ns;
    /// Reports written: hang, hang_recovered, deadlock.
    uint64_t hang_reports;
    uint64_t recovered_reports;
    uint64_t deadlock_reports;
    /// `detection_ms` of the last hang or deadlock report, and the
    /// CLOCK_MONOTONIC time (ns) at which that report was committed.
    uint64_t last_detection_ms;
    uint64_t last_report_monotonic_ns;
} faultline_hang_stats;

/// Fills `out` (zeroed when the detector is not running).
FAULTLINE_API void faultline_hang_get_stats(faultline_hang_stats *out);

/// The last error of `faultline_hang_set_pinger` or
/// `faultline_hang_configure`, or "".
FAULTLINE_API const char *faultline_hang_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
