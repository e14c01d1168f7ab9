// Optional stderr capture: fd 2 is replaced by a pipe that a small thread
// drains, forwarding every byte to the original stderr and keeping the last
// FL_STDERR_RING bytes, so a crash report can carry what the program said
// last (a runtime's fatal error message, an assertion).
#ifndef FL_STDERR_CAPTURE_H
#define FL_STDERR_CAPTURE_H

#include <stddef.h>

struct fl_json;

#define FL_STDERR_RING 16384
/// Bytes of the tail put into a report.
#define FL_STDERR_TAIL 4096

/// Starts capture. Not async-signal-safe. Returns 0 or -1. In a process
/// whose runtime ends it with a raw exit_group (Go: raw_exit_runtime.h)
/// capture stays off and 0 is returned: its last lines would be lost.
int fl_stderr_capture_start(void);
/// 1 when capture is running.
int fl_stderr_capture_active(void);
/// The original stderr (fd 2 itself when capture is off).
int fl_stderr_original_fd(void);
/// Copies the last bytes written to stderr into `out`, after giving the
/// drain thread a moment to forward what is still in the pipe. Returns the
/// count. Async-signal-safe.
size_t fl_stderr_tail(char *out, size_t cap);
/// Writes `"stderr_tail"` (the last FL_STDERR_TAIL bytes, via `buf`, which
/// each caller owns so two detectors never share it) when capture is on.
/// Async-signal-safe.
void fl_stderr_write_tail(struct fl_json *w, char *buf, size_t cap);
/// Before the process dies: lets the drain thread forward what is still in
/// the pipe (bounded, 50 ms), then points fd 2 back at the real stderr so
/// whatever is written from here on (a chained handler's message) is not
/// lost with the pipe. Async-signal-safe.
void fl_stderr_release(void);
/// Routes fd 2 through the capture pipe again after a release (an exec that
/// failed). Async-signal-safe.
void fl_stderr_resume(void);

#endif
