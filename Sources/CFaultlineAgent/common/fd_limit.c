// Interposes setrlimit, setrlimit64, prlimit and prlimit64 only to notice
// a program lowering its own fd limit (bash's `ulimit -n 16`, Python's
// resource.setrlimit): the programs it then starts run without the memory
// monitor (fd_limit.h), and the line saying so is
// printed here, once, rather than by each of them; or raising its soft
// limit to a hard one that cannot rise (the reserve is then held). Each call goes on to
// the next definition (the malloc shim's, which trims its arena before an
// RLIMIT_AS change, or libc's) unchanged.
#include "fl_options.h"
#include "tool_log.h"
#include "interpose_next.h"
#include "fd_limit.h"
#include "agent_config.h"
#include "fd_high.h"
#include "report_file.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define FL_EXPORT __attribute__((visibility("default")))
// Set to the limit once the line is printed: the processes a script under
// `ulimit -n 16` starts inherit it and do not print it again.
#define FL_NOTED_ENV "FAULTLINE_FD_LIMIT_NOTED"

int faultline_is_installed(void);

void fl_fd_limit_note(int limit, int memory) {
    if (!memory) return;
    char value[24];
    snprintf(value, sizeof value, "%d", limit);
    const char *noted = fl_option_value(FL_OPT_FD_LIMIT_NOTED);
    if (noted && strcmp(noted, value) == 0) return;
    fl_log_printf(
            "faultline: the fd limit (ulimit -n) is %d: programs started under it run without the memory monitor, which "
            "holds fds for the process's life (it needs a limit of %d or more); crash, hang and heap reports and stderr "
            "capture still work\n",
            limit, FL_FD_LOW_LIMIT + 1);
    setenv(FL_NOTED_ENV, value, 1);
}

// After a successful change of this process's own limit.
static void changed(pid_t pid, int resource, const struct rlimit *limit) {
    if (resource != RLIMIT_NOFILE || !limit) return;
    if ((pid != 0 && pid != getpid()) || !faultline_is_installed()) return;
    int saved = errno;
    if (limit->rlim_cur <= FL_FD_LOW_LIMIT) fl_fd_limit_note((int)limit->rlim_cur, fl_agent_config.detectors & FL_DETECTOR_MEMORY);
    // The program took the room above its limit back (soft raised to the
    // hard limit, `ulimit -Sn $(ulimit -Hn)`; fd_high.c): an open of ours
    // out of fds cannot raise it any more, so the reserve and the report
    // directory are held from now on, as before a set*id call.
    else if (!fl_fd_limit_raisable()) fl_report_dir_hold();
    errno = saved;
}

typedef int (*setrlimit_fn)(int, const struct rlimit *);
typedef int (*prlimit_fn)(pid_t, int, const struct rlimit *, struct rlimit *);

FL_EXPORT int setrlimit(__rlimit_resource_t resource, const struct rlimit *limit) {
    static setrlimit_fn next;
    FL_NEXT_SLOT(next, "setrlimit")
    if (!next) next = (setrlimit_fn)dlsym(RTLD_NEXT, "setrlimit");
    int rc = next ? next((int)resource, limit) : (errno = ENOSYS, -1);
    if (rc == 0) changed(0, (int)resource, limit);
    return rc;
}

FL_EXPORT int setrlimit64(__rlimit_resource_t resource, const struct rlimit64 *limit) {
    static setrlimit_fn next;
    FL_NEXT_SLOT(next, "setrlimit64")
    if (!next) next = (setrlimit_fn)dlsym(RTLD_NEXT, "setrlimit64");
    int rc = next ? next((int)resource, (const struct rlimit *)limit) : (errno = ENOSYS, -1);
    if (rc == 0) changed(0, (int)resource, (const struct rlimit *)limit);
    return rc;
}

FL_EXPORT int prlimit(pid_t pid, __rlimit_resource_t resource, const struct rlimit *limit, struct rlimit *old) {
    static prlimit_fn next;
    FL_NEXT_SLOT(next, "prlimit")
    if (!next) next = (prlimit_fn)dlsym(RTLD_NEXT, "prlimit");
    int rc = next ? next(pid, (int)resource, limit, old) : (errno = ENOSYS, -1);
    if (rc == 0) changed(pid, (int)resource, limit);
    return rc;
}

FL_EXPORT int prlimit64(pid_t pid, __rlimit_resource_t resource, const struct rlimit64 *limit, struct rlimit64 *old) {
    static prlimit_fn next;
    FL_NEXT_SLOT(next, "prlimit64")
    if (!next) next = (prlimit_fn)dlsym(RTLD_NEXT, "prlimit64");
    int rc = next ? next(pid, (int)resource, (const struct rlimit *)limit, (struct rlimit *)old) : (errno = ENOSYS, -1);
    if (rc == 0) changed(pid, (int)resource, (const struct rlimit *)limit);
    return rc;
}
