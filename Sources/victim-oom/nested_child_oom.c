// victim-oom nested-child-oom: an OOM kill counted (cgroup v1) only in a
// cgroup the program removes right after; the run's tracker must keep it.
#include "nested_child_oom.h"
#include "own_cgroup.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile g_keep;  // keeps the growth from being optimised away

/// The child: joins `nested`, then grows in touched 64 KiB steps.
static void grow_inside(const char *nested) {
    prctl(PR_SET_NAME, "oom-child", 0, 0, 0);
    char procs[4300];
    snprintf(procs, sizeof procs, "%s/cgroup.procs", nested);
    FILE *f = fopen(procs, "we");
    if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0) _exit(2);
    for (;;) {
        char *p = malloc(64 << 10);
        if (!p) _exit(3);
        for (size_t i = 0; i < (64 << 10); i += 4096) p[i] = 1;
        g_keep = p;
    }
}

void victim_nested_child_oom(void) {
    char dir[4096], nested[4200];
    own_memory_cgroup(dir, sizeof dir);
    snprintf(nested, sizeof nested, "%s/victim-nested-child", dir);
    if (mkdir(nested, 0755) != 0) { fprintf(stderr, "victim-oom: mkdir %s: %s\n", nested, strerror(errno)); exit(2); }
    fflush(0);
    pid_t child = fork();
    if (child < 0) { perror("victim-oom: fork"); exit(2); }
    if (child == 0) grow_inside(nested);
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    // The nested cgroup empties a moment after the reap; retry briefly.
    int removed = -1;
    for (int i = 0; i < 200 && (removed = rmdir(nested)) != 0 && errno == EBUSY; i++) usleep(5000);
    printf("victim-oom: child in the nested cgroup %s; nested cgroup %s\n",
           WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? "killed by SIGKILL" : "did not die of SIGKILL",
           removed == 0 ? "removed" : "not removed");
    exit(0);
}
