// The threads detector's reports: `thread_leak` at exit (joinable threads
// that finished and were never joined or detached: each keeps its stack
// and descriptor until then) and `thread_growth` (thread_growth.h), both
// grouped by creating stack.
#ifndef FL_THREAD_REPORT_H
#define FL_THREAD_REPORT_H

/// Maps the report buffer. Returns 0 or -1. Install time.
int fl_thread_report_init(void);
/// Writes `kind` for the records it is about ("thread_leak": finished,
/// joinable; "thread_growth": not finished). Returns the threads reported.
int fl_thread_report_write(const char *kind, int mark);
/// Arms the exit check (a destructor, as the fds detector's).
void fl_thread_report_at_exit(void);

#endif
