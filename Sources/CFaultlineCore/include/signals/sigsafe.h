// Async-signal-safe helpers: no malloc, no stdio, no locks. Everything here
// may be called from a signal handler.
#ifndef FL_SIGSAFE_H
#define FL_SIGSAFE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// Thread id of the calling thread (raw syscall; glibc's gettid is fine but
/// this keeps the dependency explicit).
pid_t fl_gettid(void);
/// Sends this process's thread `tid` signal `sig` with `mark` in si_value
/// (rt_tgsigqueueinfo, SI_QUEUE: tgkill carries no value), so that a
/// handler can tell the sender's deliveries from the program's. 0, or -1
/// with errno.
int fl_send_marked_signal(pid_t tid, int sig, const void *mark);
/// Length of a NUL-terminated string.
size_t fl_strlen(const char *s);
/// Copies at most cap-1 bytes and NUL-terminates; returns bytes copied.
size_t fl_strlcpy(char *dst, const char *src, size_t cap);
/// `fl_strlcpy` of at most `max` bytes of `src`, ending in "..." when `src`
/// is longer: for quoting a user's value in a one-line message that must
/// keep room for what is wrong with it.
size_t fl_strlcpy_cut(char *dst, const char *src, size_t cap, size_t max);
/// Returns 1 when the strings are equal.
int fl_streq(const char *a, const char *b);
/// Returns 1 when `s` starts with `prefix`.
int fl_startswith(const char *s, const char *prefix);
/// Writes `v` in decimal into `buf` (at least 21 bytes); returns length.
size_t fl_fmt_u64(char *buf, uint64_t v);
/// Writes `v` in decimal with a sign into `buf` (at least 22 bytes).
size_t fl_fmt_i64(char *buf, int64_t v);
/// Writes "0x" and `v` in lower-case hex into `buf` (at least 19 bytes).
size_t fl_fmt_hex(char *buf, uint64_t v);
/// Parses a hex number (no prefix); stops at the first non-hex character.
uint64_t fl_parse_hex(const char *s, const char **end);
/// Parses a decimal number; stops at the first non-digit.
uint64_t fl_parse_dec(const char *s, const char **end);
/// The value of field `name` in a /proc status text: the first character
/// after `name` and the blanks behind it, or NULL. `name` starts with a
/// newline ("\nSigBlk:"), so "voluntary" does not match inside
/// "nonvoluntary" (the text's first line is never a field we ask for).
const char *fl_find_field(const char *text, const char *name);
/// Writes all of `len` bytes, retrying on EINTR/short writes. 0 on success.
/// To fd 2 as fl_write_all_no_sigpipe.
int fl_write_all(int fd, const void *buf, size_t len);
/// fl_write_all, but a reader that has gone is an EPIPE error only: the
/// SIGPIPE the write raises is blocked and taken back (raw system calls).
int fl_write_all_no_sigpipe(int fd, const void *buf, size_t len);
/// Reads a whole small regular file into `buf` (NUL-terminated); returns
/// its length, or -1 with errno (EISDIR for a directory, EINVAL for any
/// other file that is not regular, such as a FIFO, which is never waited on).
ssize_t fl_read_file(const char *path, char *buf, size_t cap);
/// Sleeps for `ns` nanoseconds, to a deadline on the monotonic clock, however
/// many signals interrupt it (clock_nanosleep is async-signal-safe).
void fl_sleep_ns(uint64_t ns);
/// Monotonic clock in nanoseconds.
uint64_t fl_monotonic_ns(void);
/// Wall clock in nanoseconds since the Unix epoch.
uint64_t fl_realtime_ns(void);
/// Formats `unix_ns` as "YYYY-MM-DDTHH:MM:SS.mmmZ" (25 bytes with NUL).
void fl_fmt_iso8601(char *buf, uint64_t unix_ns);
/// Copies memory (the compiler may not turn this into a libc call that is
/// unsafe; memcpy itself is async-signal-safe in glibc, this is for clarity).
void fl_memcpy(void *dst, const void *src, size_t n);

#endif
