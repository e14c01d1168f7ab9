// The `cpu_hog` report: the thread, its share of a core and CPU time over
// the episode, the process's, and the stacks sampled meanwhile, most
// samples first (the first is the culprit, as `crashed_thread`).
#ifndef FL_CPU_REPORT_H
#define FL_CPU_REPORT_H

#include "cpu_stacks.h"

#include <stdint.h>
#include <sys/types.h>

/// What the monitor knows of an episode when it reports it.
typedef struct fl_cpu_episode_info {
    pid_t tid;
    uint64_t duration_ns, cpu_ns, process_cpu_ns;
    int threshold_percent, window_ms, sample_ms;
    fl_cpu_stacks *stacks;
} fl_cpu_episode_info;

/// Maps the report buffer. Returns 0 or -1. Install time.
int fl_cpu_report_init(void);
/// Writes the report. Returns 0 or -1.
int fl_cpu_report_hog(const fl_cpu_episode_info *e);

#endif
