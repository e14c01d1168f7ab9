// The libc-helpers command of victim-leak (libc_helpers.c).
#ifndef VICTIM_LEAK_LIBC_HELPERS_H
#define VICTIM_LEAK_LIBC_HELPERS_H

/// Loses one block from each of strdup, strndup, asprintf, __asprintf_chk,
/// getline, realpath and getcwd, each from its own function. Returns 0.
int victim_libc_helpers(void);

/// Leaves getline (blocked on an empty pipe) by siglongjmp from a SIGALRM
/// handler, then loses a 55-byte block from lose_after_jump. Returns 0.
int victim_libc_helper_jump(void);

/// getline woken by a SIGALRM handler that first mallocs 77 bytes and
/// strdup's a string, then getline on a fopencookie stream whose read
/// function mallocs 66 bytes: all three lost. Returns 0.
int victim_libc_helper_reentry(void);

#endif
