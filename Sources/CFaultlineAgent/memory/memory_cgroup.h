// The memory cgroup this process is in, found at install from
// /proc/self/cgroup and /proc/self/mountinfo (cgroup v1 `memory` hierarchy,
// or v2 with the memory controller), and its numbers read through file
// descriptors opened once (pread at offset 0 makes the kernel regenerate a
// cgroup file, so a sample is a few system calls and no path lookups).
#ifndef FL_MEMORY_CGROUP_H
#define FL_MEMORY_CGROUP_H

#include <limits.h>
#include <stdint.h>

/// Most ancestor levels whose limits are watched (the effective limit is
/// the smallest on the path to the root).
#define FL_MEMCG_MAX_LEVELS 8

/// An open memory cgroup.
typedef struct fl_memcg {
    int version;                     ///< 1 or 2; 0 when none was found
    char dir[PATH_MAX];              ///< its directory
    char path[PATH_MAX];             ///< its path in the hierarchy (for reports)
    int usage_fd;                    ///< memory.usage_in_bytes / memory.current
    int peak_fd;                     ///< memory.max_usage_in_bytes / memory.peak; -1 if absent
    int limit_fds[FL_MEMCG_MAX_LEVELS]; ///< memory.limit_in_bytes / memory.max, own first
    int limit_count;
    char v2_dir[PATH_MAX];           ///< own cgroup in the v2 hierarchy ("" when none or the root)
} fl_memcg;

/// Finds and opens this process's memory cgroup. With `only_limited`, a
/// cgroup with no limit on it or above it is left closed and 1 returned
/// (`path` and `version` set): its usage and peak files are not opened.
/// Returns 0, 1, or -1 with a one-line reason in `why`. Not
/// async-signal-safe (install time).
int fl_memcg_open(fl_memcg *m, int only_limited, char *why, int why_cap);

/// Closes every fd `m` holds (a monitor with nothing to watch). Install time.
void fl_memcg_close(fl_memcg *m);

/// Reads a number from an open cgroup file; "max" and v1's "unlimited"
/// (>= 2^62) read as UINT64_MAX; -1 on failure.
int fl_memcg_read(int fd, uint64_t *out);

/// Usage now, in bytes (0 on failure).
uint64_t fl_memcg_usage(const fl_memcg *m);
/// The effective limit (smallest on the path to the root), UINT64_MAX when unlimited.
uint64_t fl_memcg_limit(const fl_memcg *m);
/// Peak usage from the kernel, or 0 when it has no peak file.
uint64_t fl_memcg_peak(const fl_memcg *m);

#endif
