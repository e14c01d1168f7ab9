// Writing what launch_clock.c measured: the `.launch-PID.json` record for
// `faultline exec` (under exec only) and the `launch` report (over the
// threshold).
#ifndef FL_LAUNCH_REPORT_H
#define FL_LAUNCH_REPORT_H

#include <stdint.h>

/// The moments of one launch (CLOCK_MONOTONIC ns; 0: not seen).
typedef struct fl_launch_times {
    uint64_t exec_ns;         ///< the exec (from faultline exec), else the fork (/proc)
    int from_exec;            ///< 1 when exec_ns came from faultline exec
    uint64_t constructor_ns;  ///< the agent's constructor began
    uint64_t main_ns;         ///< main was called
    uint64_t ready_ns;        ///< ready (0: never, the record is written at exit)
    const char *ready_by;     ///< how ready was seen, NULL when never
    uint64_t threshold_ms;    ///< report when longer (0: never)
} fl_launch_times;

/// Writes the record (under exec) and, over the threshold, the report.
void fl_launch_write(const fl_launch_times *t);

#endif
