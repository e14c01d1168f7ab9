// The "threads" section: every thread's stack, captured by directed signal.
#ifndef FL_AGENT_THREADS_H
#define FL_AGENT_THREADS_H

#include "image_list.h"
#include "json_writer.h"

#include <stdint.h>
#include <sys/types.h>

/// Writes `"threads": [...]` for every thread but `skip_tid`, each captured
/// by directed signal within `timeout_ns` per thread, at most `max_threads`,
/// the whole list within `fl_threads_deadline` (threads past it say
/// `capture_skipped: "the thread list's deadline passed"`).
/// With `want_fp` every thread walks its frame pointers instead of calling
/// libunwind; without it, a thread that does so on its own (another thread
/// is inside dl_iterate_phdr) gets `"unwinder": "frame_pointer"`.
void fl_report_other_threads(fl_json *w, pid_t skip_tid, const fl_image_list *images,
                             int max_frames, int max_threads, uint64_t timeout_ns, int want_fp);

#endif
