// What the leak victims need around the malloc shim's scan: its on-demand
// check, and a stack with no stale pointers left in it.
#ifndef VICTIM_LEAK_CHECK_H
#define VICTIM_LEAK_CHECK_H

#ifdef __cplusplus
extern "C" {
#endif

/// The malloc shim's on-demand check: returns the blocks it found lost.
typedef long (*victim_leak_check_fn)(void);

/// The shim's faultline_leak_check, looked up at run time (the victim runs
/// without the shim too), or NULL when it is not loaded.
victim_leak_check_fn victim_leak_check(void);

/// victim_leak_check, saying "victim: faultline_leak_check not found (shim
/// not preloaded)" on stdout when it is NULL.
victim_leak_check_fn victim_leak_check_needed(void);

/// Overwrites 16 KiB of dead stack below the caller: copies of pointers
/// that earlier calls left there would make the conservative scan call a
/// lost block reachable.
void victim_clear_stack(void);

/// The leak-*.json reports in directory `dir`, or -1 when it cannot be read.
int victim_leak_reports(const char *dir);

#ifdef __cplusplus
}
#endif
#endif
