// Nearing RLIMIT_NOFILE: once the program holds most of the descriptors
// its soft limit allows (FAULTLINE_FD_WARN_PERCENT, default 90), one
// `fd_pressure` report with the opening stacks that hold the most, and a
// line on stderr — before its opens start failing with EMFILE.
#ifndef FL_FD_PRESSURE_H
#define FL_FD_PRESSURE_H

/// Reads the option and the limit. Install time.
void fl_fd_pressure_init(void);
/// After `fd` was recorded: writes the warning when the count has reached
/// the mark (once per process). Async-signal-safe.
void fl_fd_pressure_check(int fd);

#endif
