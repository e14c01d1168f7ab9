// Opens Faultline makes while the program runs, kept out of the way of the
// program's own dup2. An open takes the lowest free number, usually 3 to 9,
// for the few microseconds until the fd moves high (fd_high.h). A program
// that dup2s onto that number meanwhile (a shell's `exec 3>log`, a launcher
// laying out fds) would have its file read and then closed by us, or its
// dup2 fail with EBUSY while the open is still in the kernel. The agent's
// dup2 and dup3 therefore wait for such an open to finish, and such an open
// waits for a dup2 in progress (both bounded, so neither can hang on the
// other: a signal handler may interrupt either).
//
// Such opens also draw on a reserve: a program that has used every fd it may
// have (an fd leak until EMFILE, often followed by a crash on the error
// path) would otherwise lose the report of that crash, of a hang or a heap
// error, and its leak check. When the soft limit can be raised (the hard
// limit leaves room, or the process may raise the hard limit too:
// fl_fd_limit_raisable), an open that fails with EMFILE is made again with
// the limit raised for that one call, and nothing is held. Else (a soft
// limit equal to a hard one that cannot rise) one fd is held in the high
// range for this (an O_PATH open of /dev/null: no device is opened); an open
// that fails with EMFILE or ENFILE closes it and tries once more, which then
// gets its number, and fl_close_high takes it back while the number is free.
// Best effort with threads: between those closes and opens a thread of the
// program's can take the number, and then the reserve is gone until one of
// our closes finds a number free again.
#ifndef FL_FD_TRANSIENT_H
#define FL_FD_TRANSIENT_H

#include <sys/types.h>

/// open(path, flags), then moved high (fl_fd_move_high) before a dup2 of
/// the program's may land on its number. -1 with errno on failure.
/// Async-signal-safe.
int fl_open_high(const char *path, int flags);

/// openat(dir, name, flags, mode), moved high like fl_open_high.
int fl_openat_high(int dir, const char *name, int flags, mode_t mode);

/// Closes an fd from fl_open_high or fl_openat_high, then takes the reserve
/// back if an open had to use it (its number is free again now). Keeps
/// errno. Async-signal-safe.
void fl_close_high(int fd);

/// Opens the reserve, when the fd limit leaves room for a high range
/// (fl_fd_low_limit is 0) but the soft limit cannot be raised
/// (fl_fd_limit_raisable is 0), and opens are not forwarded to another copy
/// (fl_fd_transient_share): from then on it is held, and taken back after
/// each use. Returns its number, or -1 when none is held. Install time.
int fl_fd_reserve_take(void);
/// Before a set*id call (the program may drop CAP_SYS_RESOURCE with it):
/// when the soft limit equals the hard one, the hard limit could be raised
/// only by that privilege (fl_fd_limit_raisable), so the reserve is taken
/// and kept from now on, as where it cannot be raised at all. Not on the
/// fault path.
void fl_fd_reserve_before_setid(void);
/// The reserve's number, or -1 while none is held (the agent's close and
/// dup2 interposers refuse it like its other fds). Async-signal-safe.
int fl_fd_reserve(void);

/// The program is closing `fd`, the reserve's number (a close-all): the
/// reserve is given up, and taken again by the next fl_close_high. The
/// caller's close does the closing. Async-signal-safe.
void fl_fd_reserve_forget(int fd);
/// The program closed the reserve where nothing lies above its limit (it
/// raised its soft limit to the hard one after install): no reserve is
/// kept from now on, since every number we could take again is one the
/// program lists, and a close-all means to leave none. Out of fds, a
/// report's opens then fail as they would without the reserve (the report
/// goes to the log channel). A later set*id call or raise takes it again.
/// Async-signal-safe.
void fl_fd_reserve_stop_keeping(void);

/// Makes this copy's fl_open_high, fl_openat_high and fl_close_high call
/// `openat_high` and `close_high` (another copy's: the agent's, seen from
/// the malloc shim, each of which links its own), and closes this copy's
/// reserve: the process then holds one reserve, and the shim's opens are
/// held off by the agent's dup2 too. Install time.
void fl_fd_transient_share(int (*openat_high)(int, const char *, int, mode_t), void (*close_high)(int));

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
