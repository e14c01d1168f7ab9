// The fds detector's reports: `fd_leak` at exit (descriptors the process
// opened and never closed, grouped by opening stack, valgrind
// --track-fds style) and `fd_pressure` (fd_pressure.h).
#ifndef FL_FD_REPORT_H
#define FL_FD_REPORT_H

/// Maps the report buffer and image list. Returns 0 or -1. Install time.
int fl_fd_report_init(void);
/// Writes `kind` ("fd_leak" or "fd_pressure") for the followed fds that
/// are still open and the same file they were opened as (fds 0-2 left
/// out, like valgrind's --track-fds=yes); `soft_limit` is written in
/// fd_pressure. Returns the descriptors reported (0: no report).
/// Async-signal-safe; one at a time.
int fl_fd_report_write(const char *kind, long soft_limit);
/// Installs the exit check (a destructor runs it, after the program's
/// atexit handlers and its libraries' destructors that ran before ours).
void fl_fd_report_at_exit(void);
/// The process is leaving by _exit, _Exit or exit_group (no destructor
/// will run): the exit check, unless it ran or this is a vfork child.
/// Async-signal-safe.
void fl_fd_report_leaving(void);
/// The child of a fork: its exit check is its own (fork handler).
void fl_fd_report_forked(void);

#endif
