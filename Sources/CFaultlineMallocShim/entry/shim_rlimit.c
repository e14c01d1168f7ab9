// setrlimit and prlimit, interposed for RLIMIT_AS: the arena reserves 40 GiB
// of address space (PROT_NONE, no memory), which counts against an
// address-space limit. A program that lowers its own (bash's `ulimit -v`,
// Python's resource.setrlimit, a test harness capping itself) was left with
// a process already far over it: every later mmap and brk failed, and bash
// died at its next large allocation ("xrealloc: cannot allocate"). Before
// such a limit takes effect, the arena gives back what it never used
// (shim_arena_trim); blocks that no longer fit go to glibc. The call itself
// is the kernel's prlimit64, as glibc makes it.
#include "shim_arena.h"

#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SHIM_EXPORT __attribute__((visibility("default")))

static void before(pid_t pid, int resource, const struct rlimit *limit) {
    if (resource != RLIMIT_AS || !limit || limit->rlim_cur == RLIM_INFINITY) return;
    if (pid != 0 && pid != getpid()) return;
    int saved = errno;
    shim_arena_trim();
    errno = saved;
}

static int call(pid_t pid, int resource, const struct rlimit *limit, struct rlimit *old) {
    before(pid, resource, limit);
    return (int)syscall(SYS_prlimit64, (long)pid, (long)resource, limit, old);
}

/// setrlimit(2), trimming the arena first when RLIMIT_AS is lowered.
SHIM_EXPORT int setrlimit(__rlimit_resource_t resource, const struct rlimit *limit) { return call(0, (int)resource, limit, 0); }

/// setrlimit64: the same call on LP64.
SHIM_EXPORT int setrlimit64(__rlimit_resource_t resource, const struct rlimit64 *limit) {
    return call(0, (int)resource, (const struct rlimit *)limit, 0);
}

/// prlimit(2), trimming the arena first when this process's RLIMIT_AS is lowered.
SHIM_EXPORT int prlimit(pid_t pid, __rlimit_resource_t resource, const struct rlimit *limit, struct rlimit *old) {
    return call(pid, (int)resource, limit, old);
}

/// prlimit64: the same call on LP64.
SHIM_EXPORT int prlimit64(pid_t pid, __rlimit_resource_t resource, const struct rlimit64 *limit, struct rlimit64 *old) {
    return call(pid, (int)resource, (const struct rlimit *)limit, (struct rlimit *)old);
}
