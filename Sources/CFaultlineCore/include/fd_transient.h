// Opens Faultline makes while the program runs, kept out of the way of the
// program's own dup2. An open takes the lowest free number, usually 3 to 9,
// for the few microseconds until the fd moves high (fd_high.h). A program
// that dup2s onto that number meanwhile (a shell's `exec 3>log`, a launcher
// laying out fds) would have its file read and then closed by us, or its
// dup2 fail with EBUSY while the open is still in the kernel. The agent's
// dup2 and dup3 therefore wait for such an open to finish, and such an open
// waits for a dup2 in progress (both bounded, so neither can hang on the
// other: a signal handler may interrupt either).
#ifndef FL_FD_TRANSIENT_H
#define FL_FD_TRANSIENT_H

#include <sys/types.h>

/// open(path, flags), then moved high (fl_fd_move_high) before a dup2 of
/// the program's may land on its number. -1 with errno on failure.
/// Async-signal-safe.
int fl_open_high(const char *path, int flags);

/// openat(dir, name, flags, mode), moved high like fl_open_high.
int fl_openat_high(int dir, const char *name, int flags, mode_t mode);

/// Brackets any other call that makes fds of ours (pipe2, eventfd, ...):
/// dup2s are held off from fl_fd_open_begin until fl_fd_open_end, which
/// comes after the new fds have been moved high. Async-signal-safe.
void fl_fd_open_begin(void);
/// Ends what fl_fd_open_begin started.
void fl_fd_open_end(void);

/// Called by the dup2/dup3 interposers around the real call: waits (at
/// most a few milliseconds) for opens of ours in progress, and holds new
/// ones off until fl_fd_dup_end.
void fl_fd_dup_begin(void);
/// Ends what fl_fd_dup_begin started.
void fl_fd_dup_end(void);

#endif
