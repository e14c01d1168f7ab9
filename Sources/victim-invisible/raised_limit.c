// A program that raises its soft fd limit to the hard one (Python's test
// runners, `ulimit -Sn $(ulimit -Hn)`, many servers at start) and then
// forks a worker that closes every fd below the new limit, one by one (the
// way CPython's close_fds falls back without close_range) or with
// close_range, and lists /proc/self/fd. The agent started under the old
// limit, with the room above it for its own opens: the worker must see
// none of Faultline's fds all the same, not even a few watchdog ticks
// later; with `crash`, the worker then faults and its report is written.
#include "invisible_cases.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static void invisible_worker_crash(void) {
    volatile int *p = 0;
    *p = 1;
}

// The new soft limit: the hard one, set by setrlimit or prlimit (glibc's
// prlimit64, which the agent interposes as well).
static int raise_to_hard(const char *how) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return -1;
    rl.rlim_cur = rl.rlim_max;
    if (strcmp(how, "prlimit") == 0) return prlimit(0, RLIMIT_NOFILE, &rl, 0);
    return setrlimit(RLIMIT_NOFILE, &rl);
}

int invisible_raised_limit_child(int argc, char **argv) {
    const char *how = argc > 2 ? argv[2] : "setrlimit";
    const char *close_how = argc > 3 ? argv[3] : "loop";
    int crash = argc > 4 && strcmp(argv[4], "crash") == 0;
    struct rlimit before, after;
    getrlimit(RLIMIT_NOFILE, &before);
    if (raise_to_hard(how) != 0) {
        perror("victim-invisible: raising RLIMIT_NOFILE to the hard limit");
        return 2;
    }
    getrlimit(RLIMIT_NOFILE, &after);
    printf("raised-limit (%s): soft %llu -> %llu, hard %llu\n", how, (unsigned long long)before.rlim_cur,
           (unsigned long long)after.rlim_cur, (unsigned long long)after.rlim_max);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (strcmp(close_how, "close_range") == 0) {
            close_range(3, ~0u, 0);
        } else {
            for (long fd = 3; fd < (long)after.rlim_cur; fd++) close((int)fd);
        }
        // Long enough for the hang watchdog to tick (and any lazy retake of
        // ours to show) before the listing.
        usleep(300 * 1000);
        char *list_argv[] = {argv[0], "list-fds", "worker after close-all", 0};
        int rc = invisible_list_fds(3, list_argv);
        if (crash) invisible_worker_crash();
        _exit(rc);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
