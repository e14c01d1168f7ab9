// The quarantine's check at exit (FAULTLINE_CHECK_AT_EXIT): every freed
// block still held whose 0x55 pattern changed, grouped by allocation and
// free stack, one write_after_free report per group, at most
// FAULTLINE_MAX_HEAP_REPORTS reports in all.
#ifndef SHIM_EXIT_CHECK_H
#define SHIM_EXIT_CHECK_H

/// Checks the quarantine (and the frees other threads collected): reports
/// one group per distinct (allocation stack, free stack) pair, oldest
/// first, with the number of changed blocks in it; says on stderr how many
/// groups and blocks the report limit left out. Returns how many reports
/// were written. Allocation-free: its scratch is mapped for the call.
int shim_exit_check(void);

/// Everything a normal exit checks (the quarantine, the leak check, the
/// statistics), once per process: the shim's destructor, and _exit, _Exit
/// and exit_group (shim_exit_hooks.c). Defined in shim_init.c.
void shim_exit_checks(void);

#endif
