// Optional stderr capture: a copy of the last FL_STDERR_RING bytes the
// program wrote to fd 2, so a crash report can carry what it said last (a
// runtime's fatal error message, an assertion). Fd 2 itself is never
// touched — same file, same terminal, same isatty — and nothing is held:
// the copy is taken on the way out (stderr_tee.c): write and writev on fd 2,
// and the `stderr` stream, which becomes an unbuffered stream of the same
// behaviour whose writes go to fd 2 through the same path.
#ifndef FL_STDERR_CAPTURE_H
#define FL_STDERR_CAPTURE_H

#include <stddef.h>

struct fl_json;

#define FL_STDERR_RING 16384
/// Bytes of the tail put into a report.
#define FL_STDERR_TAIL 4096

/// Starts capture. Not async-signal-safe (it makes the `stderr` stream).
/// Returns 0 or -1.
int fl_stderr_capture_start(void);
/// 1 when capture is running.
int fl_stderr_capture_active(void);
/// Keeps `n` bytes the program has just written to fd 2. Async-signal-safe,
/// lock-free: any thread, any signal handler.
void fl_stderr_keep(const void *p, size_t n);
/// `newfd` was just made a copy of `oldfd` (dup, dup2, dup3, fcntl's
/// F_DUPFD and F_DUPFD_CLOEXEC, or those through syscall()): writes to it
/// are kept when `oldfd` is fd 2 or a copy of it. Async-signal-safe.
void fl_stderr_copied(int oldfd, int newfd);
/// The fds in [lo, hi] were closed or replaced: no longer copies of fd 2.
void fl_stderr_closed(unsigned lo, unsigned hi);
/// Copies the last bytes written to stderr into `out`. Returns the count.
/// Async-signal-safe.
size_t fl_stderr_tail(char *out, size_t cap);
/// Writes `"stderr_tail"` (the last FL_STDERR_TAIL bytes, via `buf`, which
/// each caller owns so two detectors never share it) when capture is on.
/// Async-signal-safe.
void fl_stderr_write_tail(struct fl_json *w, char *buf, size_t cap);

#endif
