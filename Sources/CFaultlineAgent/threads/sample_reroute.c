#include "sample_reroute.h"
#include "raw_syscall.h"
#include "solo_call.h"
#include "thread_capture.h"

#include <string.h>
#include <sys/types.h>

/// Program threads looked at for one that lets the signal in; a program
/// with more sends it to the main thread when none of these does.
#define FL_REROUTE_THREADS 256

// The program's first thread that does not block `sig` lastingly (a thread
// in glibc's start-up mask lets it in soon), else its main thread.
static pid_t program_thread_for(int sig, pid_t pid) {
    pid_t tids[FL_REROUTE_THREADS];
    int n = fl_threads_list(tids, FL_REROUTE_THREADS, 0);
    for (int i = 0; i < n; i++) {
        if (fl_solo_thread_is_faultlines(tids[i])) continue;
        if (!fl_thread_blocks_signal_lastingly(tids[i], sig)) return tids[i];
    }
    return pid;
}

int fl_sample_reroute(int sig, const siginfo_t *info) {
    pid_t me = (pid_t)fl_raw_syscall(SYS_gettid, 0, 0, 0, 0);
    if (!fl_solo_thread_is_faultlines(me)) return 0;
    pid_t pid = (pid_t)fl_raw_syscall(SYS_getpid, 0, 0, 0, 0);
    siginfo_t copy;
    if (info) {
        memcpy(&copy, info, sizeof copy);
    } else {
        memset(&copy, 0, sizeof copy);
        copy.si_signo = sig;
        copy.si_pid = pid;
    }
    if (copy.si_code >= 0 || copy.si_code == SI_TKILL) copy.si_code = SI_QUEUE;  // rt_tgsigqueueinfo's rule (header)
    fl_raw_syscall(SYS_rt_tgsigqueueinfo, pid, program_thread_for(sig, pid), sig, (long)&copy);
    return 1;
}
