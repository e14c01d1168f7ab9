// victim-leak fork-during-checks: forks while the faultline-leaks thread
// writes a long report.
#ifndef VICTIM_LEAK_FORK_DURING_CHECKS_H
#define VICTIM_LEAK_FORK_DURING_CHECKS_H

/// Loses 8192 blocks from as many stacks (a long report), then for
/// `seconds` sends itself `signo` (the leak signal) and forks 20 children
/// that exit(0) at once. A child forked mid-report inherits the shim's
/// check lock held by a thread it does not have; its exit check must still
/// run and end. Returns 0 when every child ended within 5 s, 1 when one
/// did not (it is killed), 2 when fork failed.
int victim_fork_during_checks(int signo, int seconds);

#endif
