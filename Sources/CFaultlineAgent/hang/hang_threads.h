// The "threads" section of hang and deadlock reports: like
// fl_report_other_threads, plus what each thread is doing (syscall, the lock
// it waits for), and without disturbing the process that goes on after the
// report: a sleeping thread is not woken, and a thread that blocks the
// sample signal for good (every libdispatch worker does) is listed without
// a stack at once instead of costing a capture timeout.
#ifndef FL_HANG_THREADS_H
#define FL_HANG_THREADS_H

#include "hang_probe.h"
#include "image_list.h"
#include "json_writer.h"

#include <stdint.h>
#include <sys/types.h>


/// Writes "state", "syscall", "syscall_nr" and, for a futex wait,
/// "waits_for" (the lock, its owner) of one observation.
void fl_hang_write_activity(fl_json *w, const fl_thread_probe *p);

/// Writes `"threads": [...]` for every thread but `skip_tid`: what each is
/// doing and its stack. Threads asleep in nanosleep are not woken for their
/// stack (`capture_skipped: "sleeping"`), nor threads that block the sample
/// signal for good (`"signal_blocked"`; glibc's start-up mask lifts by
/// itself, so such a thread is asked). The list has one deadline
/// (`fl_threads_deadline`); threads past it say `"deadline_passed"`.
void fl_hang_write_threads(fl_json *w, pid_t skip_tid, const fl_image_list *images, int max_frames,
                           int max_threads, uint64_t timeout_ns);

#endif
