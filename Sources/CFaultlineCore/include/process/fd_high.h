// Where Faultline keeps the file descriptors it holds for a process's life.
// Programs choose fd numbers for their own purposes from the bottom: a
// shell's `exec 3>log`, a daemon's `dup2(pipe, 4)` before an exec, a test
// that expects open() to return 3. An fd of ours there is silently replaced
// by dup2 (a capture pipe then forwards the program's stderr into its log
// file), so, like valgrind, we keep ours at the top of the usual range.
#ifndef FL_FD_HIGH_H
#define FL_FD_HIGH_H

/// Moves `fd` to the lowest free number at or above the high base: the
/// soft limit itself (1024 under the usual one) when the hard limit leaves
/// 64 above it, so ours are out of the numbers the program may open; else
/// 64 below it (960). A soft limit above 1024 does not raise it, so the
/// kernel's fd table stays small. Returns the new number and closes the old one, keeping
/// its close-on-exec flag; returns `fd` unchanged when it is negative,
/// already high, or nothing up there is free. Async-signal-safe.
int fl_fd_move_high(int fd);

/// The highest soft RLIMIT_NOFILE too low for a high range: at or below it
/// Faultline holds no fd of its own (fl_fd_low_limit).
#define FL_FD_LOW_LIMIT 256

/// The soft RLIMIT_NOFILE when it was too low for a high range
/// (FL_FD_LOW_LIMIT or less) as this image first asked, else 0. Every fd
/// Faultline holds at such a limit is one of the few the program has (13
/// under `ulimit -n 16`), so it holds none: the report directory is opened
/// per report, and what cannot work without held fds (stderr capture, the
/// memory monitor) stays off. Async-signal-safe.
int fl_fd_low_limit(void);

/// 1 when the soft RLIMIT_NOFILE can be raised by 64: the hard limit is
/// at least 64 above it, or (a soft limit equal to the hard one, this VM's
/// 20000/20000) the process has CAP_SYS_RESOURCE and fs.nr_open leaves
/// room to raise the hard limit with it. An open of ours that fails with
/// EMFILE can then be made again with the limit raised for the call
/// (fl_fd_openat_raised), and no fd needs to be held in reserve for it.
/// Async-signal-safe (its first call reads fs.nr_open, at install).
int fl_fd_limit_raisable(void);

/// 1 when the high base was the soft limit itself (ours above the
/// program's numbers) and the program has since raised its soft limit past
/// it (a test runner's `setrlimit(soft = hard)`): an fd of ours taken
/// again after the program's close-all would then be one that its listing
/// of /proc/self/fd, or a forked worker's, sees. 0 where ours are still
/// above the limit, or never were (a soft limit equal to the hard one of
/// 320 or less, where no room is made: the reserve is taken again there,
/// as before). Async-signal-safe.
int fl_fd_limit_raised_past_high(void);

struct rlimit;

/// Raises RLIMIT_NOFILE by 64 for one call of ours (raw prlimit64: no
/// interposer sees it), keeping the program's value in `old`; both limits
/// when the hard one must rise too. 0, or -1 with EMFILE when it cannot be
/// raised. Async-signal-safe.
int fl_fd_raise_begin(struct rlimit *old);
/// Puts back the limit fl_fd_raise_begin saved. Keeps errno.
void fl_fd_raise_end(const struct rlimit *old);

/// openat with RLIMIT_NOFILE raised for the one call and put back at once
/// (fl_fd_raise_begin), for an open of ours once the program has used
/// every number below its limit. -1 with EMFILE when the limit cannot be
/// raised. Async-signal-safe.
int fl_fd_openat_raised(int dir, const char *name, int flags, unsigned mode);

#endif
