// The memory monitor (detector `memory`): a thread that reads the usage
// and the limit of the process's own memory cgroup every
// FAULTLINE_MEMORY_INTERVAL_MS and, the first time usage passes each
// threshold (50, 75, 90 and 95 % of the limit by default), writes a
// breadcrumb — usage, peak, time and, with the malloc shim loaded, the
// allocation stacks with the most live bytes — into a file-backed mapping
// that survives the SIGKILL of an OOM kill (memory_breadcrumb.h). It also
// turns the kernel's memory-pressure notifications into `memory_warning`
// reports, like iOS's low-memory warning. docs/memory-limits.md has the
// options and the formats.
#ifndef FL_MEMORY_MONITOR_H
#define FL_MEMORY_MONITOR_H

#include "memory_breadcrumb.h"

/// The monitor's options, from FAULTLINE_MEMORY_* variables.
typedef struct fl_memory_options {
    int interval_ms;                        ///< FAULTLINE_MEMORY_INTERVAL_MS (100; 5..60000)
    int thresholds[FL_BREADCRUMB_SLOTS];    ///< FAULTLINE_MEMORY_THRESHOLDS ("50,75,90,95"), ascending
    int threshold_count;
    int top_stacks;                         ///< FAULTLINE_MEMORY_TOP_STACKS (5; 0..8)
    char pressure_level[16];                ///< FAULTLINE_MEMORY_PRESSURE (medium; low, critical, off): v1 level
    char psi_trigger[64];                   ///< FAULTLINE_MEMORY_PSI ("some 150000 2000000", off): v2 PSI trigger
    int psi_given;                          ///< 1 when psi_trigger came from FAULTLINE_MEMORY_PSI (not off)
    int warnings_max;                       ///< FAULTLINE_MEMORY_WARNINGS (3; 0..100): most memory_warning reports
    int follow_fork;                        ///< FAULTLINE_MEMORY_FOLLOW_FORK (1): restart in forked children
} fl_memory_options;

/// Reads the options (bad values are named on stderr; the default is used).
void fl_memory_options_load(fl_memory_options *o);

/// Finds the process's memory cgroup and starts the monitor thread. A
/// process outside any memory cgroup, or in one with no limit on it or
/// above it, gets no monitor and holds no fd (not an error: returns 1 and
/// `fl_memory_monitor_status` says why). Returns 0 when
/// running, -1 on a real failure. Not async-signal-safe (install time).
int fl_memory_monitor_install(void);

/// Stops the monitor thread, closes every fd it held and removes the
/// breadcrumb file (faultline_uninstall); a later install starts over.
/// Not async-signal-safe.
void fl_memory_monitor_uninstall(void);

/// Why the monitor is off or partly off, "" when fully on.
const char *fl_memory_monitor_status(void);

#endif
