// Agent configuration: defaults, FAULTLINE_* environment variables and the
// options struct of the public API, resolved once at install.
#ifndef FL_AGENT_CONFIG_H
#define FL_AGENT_CONFIG_H

#include <limits.h>

/// Detector bits for FAULTLINE_DETECTORS (comma list of names, or "all").
enum {
    FL_DETECTOR_CRASH = 1 << 0,
    FL_DETECTOR_CXX_EXCEPTION = 1 << 1,
    FL_DETECTOR_HANG = 1 << 2,
    FL_DETECTOR_MEMORY = 1 << 3,
    FL_DETECTOR_CPU = 1 << 4,
    FL_DETECTOR_FDS = 1 << 5,
    FL_DETECTOR_THREADS = 1 << 6,
    FL_DETECTOR_LAUNCH = 1 << 7,
};

/// Every detector ("all").
#define FL_DETECTORS_ALL 0xffffu
/// With FAULTLINE_DETECTORS unset or empty: all but fds, which, like
/// valgrind's --track-fds, is asked for (docs/resources.md, "Defaults").
#define FL_DETECTORS_DEFAULT (FL_DETECTORS_ALL & ~(unsigned)FL_DETECTOR_FDS)

/// Resolved configuration.
typedef struct fl_config {
    char report_dir[PATH_MAX];
    int max_frames;
    int thread_timeout_ms;
    int max_threads;
    int capture_stderr;
    int sample_signal;
    /// Longest a stage of the crash handler may take before the report is
    /// written again without it (crash_deadline.h); 0: no deadline.
    int crash_deadline_ms;
    unsigned detectors;
} fl_config;

/// The configuration in force (valid after install).
extern fl_config fl_agent_config;

/// Parses a detector list ("crash,hang", "all", "none"); returns the bits,
/// or -1 naming the bad entry in `bad` (cap bytes).
long fl_parse_detectors(const char *list, char *bad, int cap);

#endif
