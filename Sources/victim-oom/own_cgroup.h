// The victim's own memory cgroup, for modes that make cgroups below it.
#ifndef VICTIM_OOM_OWN_CGROUP_H
#define VICTIM_OOM_OWN_CGROUP_H

#include <stddef.h>

/// The directory of this process's memory cgroup (cgroup v1 `memory`
/// hierarchy, else cgroup v2) into `out`; exits with a line when none.
void own_memory_cgroup(char *out, size_t cap);

#endif
