// The hang detector's reports: `hang` (the threshold passed), `hang_recovered`
// (the follow-up with the total duration) and `deadlock` (a lock cycle, or a
// futex wait past the deadlock threshold). Written by the watchdog thread
// into buffers mapped at install.
#ifndef FL_HANG_REPORT_H
#define FL_HANG_REPORT_H

#include "deadlock_graph.h"
#include "hang_probe.h"
#include "hang_samples.h"
#include "image_list.h"

#include <stdint.h>
#include <sys/types.h>

/// Everything a report says about one hang.
typedef struct fl_hang_episode {
    const char *mode;            ///< "ping", "heartbeat" or "inferred"
    pid_t tid;                   ///< the watched thread
    uint64_t start_ns;           ///< CLOCK_MONOTONIC: last sign of life (the hang began after it)
    uint64_t first_seen_ns;      ///< first moment seen unresponsive (detection counts from it)
    uint64_t cpu_start_ns;       ///< the watched thread's CPU time at start
    fl_thread_probe probe;       ///< latest observation of the watched thread
    int have_probe;
    fl_hang_options opts;
    fl_sample_ring *ring;
    char hang_report_id[17];     ///< id of the `hang` report, "" before it
} fl_hang_episode;

/// Maps the report buffer and the image list. Returns 0 or -1.
int fl_hang_report_init(void);

/// Writes the `hang` report; copies its id into `ep->hang_report_id`.
/// Returns 0 or -1. `detection_ns` receives now - start at commit.
int fl_hang_report_hang(fl_hang_episode *ep, uint64_t *detection_ns);

/// Writes the `hang_recovered` report. `end_ns` is when the thread was
/// seen responsive again; `ended_by` is "responsive", "exit" or
/// "process_exit".
int fl_hang_report_recovered(fl_hang_episode *ep, uint64_t end_ns, const char *ended_by);

/// Writes the `deadlock` report for `chain` (from the watched thread);
/// `cause` is "cycle" or "duration"; `action` "abort" or "continue".
int fl_hang_report_deadlock(fl_hang_episode *ep, const fl_wait_chain *chain, const char *cause,
                            uint64_t blocked_since_ns, const char *action, uint64_t *detection_ns);

#endif
