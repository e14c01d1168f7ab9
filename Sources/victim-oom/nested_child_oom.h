#ifndef VICTIM_NESTED_CHILD_OOM_H
#define VICTIM_NESTED_CHILD_OOM_H

/// Makes a cgroup below its own, forks a child ("oom-child") that moves
/// into it and grows until the OOM killer ends it, waits for the child,
/// then removes the nested cgroup (as a container runtime cleans up after
/// its container) and exits 0. cgroup v1 counts the kill only in the
/// removed cgroup. Exits 2 when it cannot run.
void victim_nested_child_oom(void);

#endif
