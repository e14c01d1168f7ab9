// victim-leak fork-during-install: a fork in the middle of the malloc
// shim's first install of its stop signal's handler.
#ifndef VICTIM_FORK_DURING_INSTALL_H
#define VICTIM_FORK_DURING_INSTALL_H

/// As root: a thread's seteuid(65534) and back makes the shim install its
/// stop signal's handler (for faultline-leaks to follow the change), which
/// this program's own sigaction makes last 300 ms; main forks meanwhile, the
/// child exits with exit(0) (its leak check), and main waits for it.
/// Returns 0 when the child exited with 0, 1 otherwise, 2 on a setup error.
int victim_fork_during_install(void);

#endif
