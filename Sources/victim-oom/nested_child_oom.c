// victim-oom nested-child-oom: an OOM kill counted (cgroup v1) only in a
// cgroup the program removes right after; the run's tracker must keep it.
#include "nested_child_oom.h"

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

/// This process's memory cgroup directory (v1 `memory` hierarchy, else v2).
static int own_dir(char *out, size_t cap) {
    char line[4096], mount[2048] = "", path[2048] = "";
    int v1 = 0;
    FILE *f = fopen("/proc/self/mountinfo", "re");
    while (f && fgets(line, sizeof line, f)) {
        char point[2048], type[64], opts[1024];
        const char *sep = strstr(line, " - ");
        if (!sep || sscanf(line, "%*s %*s %*s %*s %2047s", point) != 1 || sscanf(sep + 3, "%63s %*s %1023s", type, opts) != 2) continue;
        int memory = !strcmp(type, "cgroup") && (strstr(opts, ",memory") || !strncmp(opts, "memory", 6));
        if (memory || (!v1 && !strcmp(type, "cgroup2"))) { snprintf(mount, sizeof mount, "%s", point); v1 = memory; }
    }
    if (f) fclose(f);
    f = fopen("/proc/self/cgroup", "re");
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : 0;
        if (!c2) continue;
        *c2 = 0;
        if (v1 ? strstr(c1 + 1, "memory") != 0 : c1[1] == 0) snprintf(path, sizeof path, "%s", c2 + 1);
    }
    if (f) fclose(f);
    if (!mount[0] || !path[0]) return -1;
    snprintf(out, cap, "%s%s", mount, strcmp(path, "/") ? path : "");
    return 0;
}

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
    if (own_dir(dir, sizeof dir) != 0) { fprintf(stderr, "victim-oom: no memory cgroup found\n"); exit(2); }
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
