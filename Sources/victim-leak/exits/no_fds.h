// victim-leak commands that check for leaks with no fd left to open.
#ifndef VICTIM_LEAK_NO_FDS_H
#define VICTIM_LEAK_NO_FDS_H

/// no-fds-left: fills the 100-block global cache and loses 77 bytes, opens
/// /dev/null until no fd is left (EMFILE) and asks for an on-demand check;
/// closes them again and returns (the exit check). 2 without the shim.
int victim_no_fds_left(void);

/// no-fds-at-exit: the same, then returns with every fd still open (the
/// exit check runs without one). Returns 0.
int victim_no_fds_at_exit(void);

#endif
