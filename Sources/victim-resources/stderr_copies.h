// victim-resources' case for the stderr tee (issue 37): what a program
// writes to a copy of fd 2 made by fcntl must be in a report's stderr_tail.
#ifndef VICTIM_STDERR_COPIES_H
#define VICTIM_STDERR_COPIES_H

/// Copies fd 2 with fcntl(2, F_DUPFD) (argument "F_DUPFD") or
/// F_DUPFD_CLOEXEC, and a copy of that copy, writes one line to each by
/// write and writev (never to fd 2 itself), then dereferences NULL.
/// A victim_cases.h `run` case (envp unused).
int stderr_fcntl_copy_then_crash(int argc, char **argv, char **envp);

#endif
