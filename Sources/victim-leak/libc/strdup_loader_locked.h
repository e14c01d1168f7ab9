// The strdup-loader-locked command of victim-leak (strdup_loader_locked.c).
#ifndef VICTIM_LEAK_STRDUP_LOADER_LOCKED_H
#define VICTIM_LEAK_STRDUP_LOADER_LOCKED_H

/// The first strdup while another thread's dlopen holds the loader's lock;
/// returns 0 (2 when the set-up failed).
int victim_strdup_loader_locked(void);

/// _exit(0) while another thread's dlopen holds the loader's lock for good
/// (its library's constructor waits on a pipe nobody writes). Returns 2
/// only when the set-up failed.
int victim_exit_loader_locked(void);

#endif
