// Where Faultline's own words go: the `faultline: …` lines of the agent and
// the malloc shim (a report written, a bad option, a report that could not
// be written and follows as JSON). Not the program's stderr: a test that
// compares a child's stderr byte for byte, or a tool whose output a script
// captures, must see only the program's bytes (valgrind's --log-file).
//
// FAULTLINE_LOG chooses, read once per process image:
// - unset: fd 2, as before (the bare preload with no choice made);
// - `fd:N`: descriptor N, inherited (valgrind's --log-fd); used while it is
//   the file it was at start (device and inode), else fd 2;
// - a path: opened for each line (O_APPEND; a FIFO's reader is
//   `faultline exec`), so nothing is held between lines and a program that
//   closes every descriptor cannot break it or see it; when it cannot be
//   opened (no reader any more, a process that changed user), fd 2.
#ifndef FL_TOOL_LOG_H
#define FL_TOOL_LOG_H

#include <stddef.h>

/// The variable that names the channel.
#define FL_LOG_ENV "FAULTLINE_LOG"

/// Reads FAULTLINE_LOG. Called at install (constructor) time, before the
/// program's threads; the first fl_log_write does it otherwise. Not
/// async-signal-safe (getenv).
void fl_log_init(void);

/// Writes `len` bytes (whole lines) to the channel. 0, or -1 when even the
/// fallback failed. Async-signal-safe, allocation-free.
int fl_log_write(const void *buf, size_t len);

/// fl_log_write of a NUL-terminated string.
int fl_log_puts(const char *s);

/// printf-style line to the channel, formatted into a stack buffer (for
/// install-time messages only: vsnprintf is not async-signal-safe).
int fl_log_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
