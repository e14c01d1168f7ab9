// The agent's own file descriptors that a program must not close: once the
// stderr capture's pipe or the real stderr it forwards to is gone, nothing
// the program writes to stderr arrives any more, and the first write after
// the pipe's read end is closed kills it with SIGPIPE. Daemons and
// sandboxes close every fd above 2 at start (close in a loop, closefrom,
// close_range): those calls skip the guarded fds. Guarded fds also live at
// the top of the fd range (fd_high.h), out of the way of a program's own
// dup2 onto low numbers; a dup2 or dup3 onto one of them fails with EBADF.
#ifndef FL_FD_GUARD_H
#define FL_FD_GUARD_H

/// Moves `fd` high (fl_fd_move_high) and protects it from the program's
/// close, closefrom, close_range, dup2 and dup3. Returns the number to use
/// from now on (`fd` itself when it could not move, or is negative).
int fl_fd_guard(int fd);
/// Moves `fd` high and hides it: the program's close, closefrom,
/// close_range, dup2 or dup3 on it closes or replaces it as it would any fd,
/// after the agent has forgotten it (fl_fd_hidden is then 0), so a program
/// that closes everything sees none of ours and no number of its own is
/// ever used as ours. Returns the number to use from now on.
int fl_fd_hide(int fd);
/// 1 while `fd` is hidden and still ours (the program has not closed or
/// replaced it). Async-signal-safe.
int fl_fd_hidden(int fd);
/// Ends the protection (the agent no longer needs `fd` guarded or hidden).
void fl_fd_unguard(int fd);
/// Ends the protection and closes `fd`: how the agent closes its own.
void fl_fd_close(int fd);

#endif
