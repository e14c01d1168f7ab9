/// Faultline agent — public C API.
///
/// The agent can be linked into a program (call `faultline_install` early in
/// `main`) or injected into an unmodified binary with
/// `LD_PRELOAD=libFaultlineAgentPreload.so`, in which case a constructor reads
/// the `FAULTLINE_*` environment variables (see docs/agent.md) and installs it.
#ifndef FAULTLINE_H
#define FAULTLINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Marks the agent's exported API (everything else is hidden).
#define FAULTLINE_API __attribute__((visibility("default")))

/// Options for `faultline_install`. Zero/NULL fields take their defaults.
typedef struct faultline_options {
    /// Directory reports are written into (created if missing). Default:
    /// `$FAULTLINE_REPORT_DIR`, else `./faultline-reports`.
    const char *report_dir;
    /// Most frames unwound per thread (default 128, at most 256).
    int max_frames;
    /// How long the crashing thread waits for each other thread's stack,
    /// in milliseconds (default 50); the whole list has one deadline, this
    /// times the threads listed, at least 1 s (docs/agent.md, "Other
    /// threads' stacks").
    int thread_timeout_ms;
    /// Most threads whose stacks are captured (default 256).
    int max_threads;
    /// When non-zero, fd 2 is routed through a pipe and its last bytes are
    /// kept for the report (default off; `FAULTLINE_CAPTURE_STDERR=1`).
    int capture_stderr;
    /// Real-time signal used to sample other threads (default SIGRTMIN+8).
    int sample_signal;
} faultline_options;

/// An in-progress report that a crash callback may add fields to.
typedef struct fl_json faultline_writer;

/// A user callback run on the crash path, after the agent's own sections.
/// It must be async-signal-safe. A fault inside it still yields a report.
typedef void (*faultline_crash_callback)(faultline_writer *writer, void *context);

/// Installs the agent. Returns 0 on success, -1 with `errno` set on failure
/// (for example a report directory that cannot be created or opened).
/// Calling it again after success does nothing and returns 0.
FAULTLINE_API int faultline_install(const faultline_options *options);

/// Uninstalls the installed detectors in reverse install order, then marks
/// the agent not installed, so `faultline_install` may be called again.
/// The program gets back its own fault handlers and terminate handler; the
/// watchdog, memory monitor and cpu sampler threads end and are waited for;
/// the sigaction, mask and other interposers pass calls straight through
/// (docs/agent.md, "Detectors: one interface", says what stays). Returns 0;
/// does nothing when not installed. Not async-signal-safe; not while
/// another thread calls unshare or setns.
FAULTLINE_API int faultline_uninstall(void);

/// Returns 1 when the agent is installed in this process.
FAULTLINE_API int faultline_is_installed(void);

/// Sets (or clears, with NULL) the crash callback.
FAULTLINE_API void faultline_set_crash_callback(faultline_crash_callback callback, void *context);

/// Adds `"key": "value"` to the `user` section of the report being written.
/// Only valid inside a crash callback.
FAULTLINE_API void faultline_writer_add_string(faultline_writer *writer, const char *key, const char *value);

/// Attaches `key`: `value` to every report written from now on (the
/// `annotations` object), until set again; an empty or NULL `value`
/// removes it. At most 32 keys of 63 bytes, values cut at 255 bytes.
/// Returns 0, or -1 for an empty or too long key or when 32 are held.
/// Async-signal-safe; works before `faultline_install` too.
FAULTLINE_API int faultline_annotate(const char *key, const char *value);

/// Names the step of its work the program is in ("startup", "checkout"),
/// written into every report from now on as `phase`; NULL or "" clears it.
/// Values are cut at 255 bytes. Returns 0. Async-signal-safe.
FAULTLINE_API int faultline_set_phase(const char *name);

/// The last error message from `faultline_install`, or "" when none.
FAULTLINE_API const char *faultline_last_error(void);

/// Tells the agent the program has finished starting (its window is up,
/// its server listens): the end of the launch the `launch` detector
/// measures, and the moment from which the `cpu` detector watches for
/// threads that burn a core (docs/resources.md). Without it, the first wait
/// of an event loop that the hang detector sees counts. Only the first call
/// counts; cheap after that. A program that must also run without the
/// agent declares it weak: `extern void faultline_ready(void)
/// __attribute__((weak));` and calls it when its address is non-null.
FAULTLINE_API void faultline_ready(void);

#ifdef __cplusplus
}
#endif
#endif
