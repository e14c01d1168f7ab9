#include "sched_wait.h"
#include "proc_tid.h"
#include "sigsafe.h"

#include <sys/resource.h>

// /proc/self/task/<id>/<leaf>, where <id> is /proc's name for `tid`; 0 when
// /proc does not list it.
static int task_file(char *path, pid_t tid, const char *leaf) {
    pid_t id = fl_proc_tid(tid);
    if (id <= 0) return 0;
    size_t l = fl_strlcpy(path, "/proc/self/task/", 64);
    l += fl_fmt_u64(path + l, (uint64_t)id);
    path[l++] = '/';
    fl_strlcpy(path + l, leaf, 64 - l);
    return 1;
}

int fl_sched_runnable(pid_t tid) {
    char path[64], buf[512];
    if (!task_file(path, tid, "stat") || fl_read_file(path, buf, sizeof buf) <= 0) return 0;
    // "pid (comm) S …": the name may hold spaces and ')', the state follows the last ')'.
    const char *close = 0;
    for (const char *p = buf; *p; p++)
        if (*p == ')') close = p;
    return close && close[1] == ' ' && close[2] == 'R';
}

uint64_t fl_own_voluntary_switches(void) {
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);  // cannot fail for the calling thread
    return (uint64_t)ru.ru_nvcsw;
}
