// The agent's own file descriptors that a program must not close: once the
// stderr capture's pipe or the real stderr it forwards to is gone, nothing
// the program writes to stderr arrives any more, and the first write after
// the pipe's read end is closed kills it with SIGPIPE. Daemons and
// sandboxes close every fd above 2 at start (close in a loop, closefrom,
// close_range): those calls skip the guarded fds.
#ifndef FL_FD_GUARD_H
#define FL_FD_GUARD_H

/// Protects `fd` from the program's close, closefrom and close_range.
void fl_fd_guard(int fd);
/// Ends the protection (the agent no longer needs `fd` guarded).
void fl_fd_unguard(int fd);
/// Ends the protection and closes `fd`: how the agent closes its own.
void fl_fd_close(int fd);

#endif
