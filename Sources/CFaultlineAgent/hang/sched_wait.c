#include "sched_wait.h"
#include "proc_tid.h"
#include "sigsafe.h"

#include <sys/resource.h>

char fl_thread_state(pid_t tid) {
    char path[64], buf[512];
    // /proc/<id>/stat, not /proc/self/task/<id>/stat: a dentry under the
    // task directory makes the process cost its reaper milliseconds
    // (proc_tid.h, fl_proc_task_path).
    pid_t id = fl_proc_tid(tid);
    if (id <= 0) return 0;
    fl_proc_task_path(path, sizeof path, id, "stat");
    if (fl_read_file(path, buf, sizeof buf) <= 0) return 0;
    // "pid (comm) S …": the name may hold spaces and ')', the state follows the last ')'.
    const char *close = 0;
    for (const char *p = buf; *p; p++)
        if (*p == ')') close = p;
    return close && close[1] == ' ' ? close[2] : 0;
}

int fl_sched_runnable(pid_t tid) { return fl_thread_state(tid) == 'R'; }

uint64_t fl_own_voluntary_switches(void) {
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);  // cannot fail for the calling thread
    return (uint64_t)ru.ru_nvcsw;
}
