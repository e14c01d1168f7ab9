// victim-leak fork-during-install: a fork in the middle of the malloc
// shim's first install of its stop signal's handler.
#ifndef VICTIM_FORK_DURING_INSTALL_H
#define VICTIM_FORK_DURING_INSTALL_H

/// As root: a thread's seteuid(65534) and back makes the shim install its
/// stop signal's handler (for faultline-leaks to follow the change), which
/// this program's own sigaction holds until main has forked (or waits
/// inside fork for the install): before the handler reaches the kernel, or
/// with `late`, after. The child exits with exit(0) (its leak check);
/// `late`, it first runs an on-demand check (which installs the shim's
/// handler if the shim takes it for not installed) and raises the signal,
/// which must reach the handler this program put there before. Returns 0
/// when the child exited with 0, 1 otherwise (also when it did not end
/// within 10 s), 2 on a setup error.
int victim_fork_during_install(int late);

#endif
