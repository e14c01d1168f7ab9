// rename-tasks-then-crash: a program that renames every task of its
// process through /proc (as some supervisors and thread-pool libraries
// do), Faultline's threads included, then faults. Reports must still name
// Faultline's threads by what they are, not by their comm.
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void victim_null_deref(void);  // main.c

/// Writes "renamed" into every task's comm; returns how many took it.
static int rename_every_task(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) { perror("victim: /proc/self/task"); exit(3); }
    int renamed = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0) continue;
        if (write(fd, "renamed", 7) == 7) renamed++;
        close(fd);
    }
    closedir(d);
    return renamed;
}

void victim_rename_tasks_then_crash(void) {
    fprintf(stderr, "victim: renamed %d task(s)\n", rename_every_task());
    victim_null_deref();
}
