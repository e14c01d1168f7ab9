// The "threads" section of hang and deadlock reports: like
// fl_report_other_threads, but a thread that blocks the sample signal (every
// libdispatch worker does) is listed without a stack at once instead of
// costing a capture timeout each, which would delay the report.
#ifndef FL_HANG_THREADS_H
#define FL_HANG_THREADS_H

#include "image_list.h"
#include "json_writer.h"

#include <stdint.h>
#include <sys/types.h>

/// 1 when thread `tid` has signal `sig` blocked (SigBlk in its status).
int fl_thread_blocks_signal(pid_t tid, int sig);

/// Writes `"threads": [...]` for every thread but `skip_tid`.
void fl_hang_write_threads(fl_json *w, pid_t skip_tid, const fl_image_list *images, int max_frames,
                           int max_threads, uint64_t timeout_ns);

#endif
