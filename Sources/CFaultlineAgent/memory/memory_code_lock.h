// Keeping the memory monitor's code in memory at the cgroup's limit.
#ifndef FL_MEMORY_CODE_LOCK_H
#define FL_MEMORY_CODE_LOCK_H

/// Locks the code the memory monitor runs at the cgroup's limit: every
/// executable segment of Faultline's own images (the agent, the malloc
/// shim) whole, and of libc and the dynamic loader the pages already in
/// memory and any faulted in later (MLOCK_ONFAULT). Code pages are page
/// cache; a page first read by this process is charged to its cgroup, and
/// at the limit the kernel reclaims such pages first, so a monitor whose
/// next instruction sat on one waited for memory like the process that
/// filled the cgroup. Best effort: a lock refused (RLIMIT_MEMLOCK) is
/// skipped. Called at install and in a forked child (locks are not
/// inherited), only when the cgroup has a limit.
void fl_memory_code_lock(void);

#endif
