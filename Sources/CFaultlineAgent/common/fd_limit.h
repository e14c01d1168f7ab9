// A low fd limit (RLIMIT_NOFILE of 256 or less, fd_high.h): the agent holds
// no fds of its own under it, so the memory monitor, which cannot work
// without, stays off in a process that starts under it.
// The user is told in one line per process tree: by the process that
// lowers the limit (setrlimit and prlimit are interposed), or by the first
// one to start under it.
#ifndef FL_FD_LIMIT_H
#define FL_FD_LIMIT_H

/// Prints the line saying what a limit of `limit` fds turns off, when
/// `memory` (what was asked for) is set and the line was not
/// printed for that limit in this process or an ancestor
/// (FAULTLINE_FD_LIMIT_NOTED). Not async-signal-safe (setenv).
void fl_fd_limit_note(int limit, int memory);

#endif
