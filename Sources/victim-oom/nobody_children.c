// victim-oom nobody-children: the memory monitor's breadcrumb file
// (FAULTLINE_REPORT_DIR/memory-PID.breadcrumbs) of processes at a temporary
// euid. The file is made at fork (in the child) and removed at _exit; in a
// 0700 directory of root's, both need root's filesystem ids, which a
// process at euid 65534 with real and saved uid 0 may take back.
#include "nobody_children.h"
#include "victim_euid.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/// Whether child `pid`'s breadcrumb file is in `dir` (asked as root).
static int file_there(const char *dir, pid_t pid) {
    char path[4096];
    snprintf(path, sizeof path, "%s/memory-%d.breadcrumbs", dir, (int)pid);
    return access(path, F_OK) == 0;
}

/// Waits for `pid`; exits 2 unless it exited 0.
static void reap(pid_t pid) {
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "victim-oom: child %d did not exit 0 (status 0x%x)\n", (int)pid, status);
        exit(2);
    }
}

void victim_nobody_children(void) {
    const char *dir = getenv("FAULTLINE_REPORT_DIR");
    if (!dir) { fprintf(stderr, "victim-oom: FAULTLINE_REPORT_DIR is not set\n"); exit(2); }
    fflush(0);
    // 1. Forked as root (its file made at root's ids), nobody at _exit.
    pid_t a = fork();
    if (a < 0) { perror("victim-oom: fork"); exit(2); }
    if (a == 0) _exit(victim_become_nobody("temporary") == 0 ? 0 : 3);
    reap(a);
    int a_left = file_there(dir, a);
    // 2. Forked by a parent that is nobody for a while: its file is made
    // at the fork, at euid 65534.
    int ready[2], go[2];
    if (pipe(ready) != 0 || pipe(go) != 0) { perror("victim-oom: pipe"); exit(2); }
    if (victim_become_nobody("temporary") != 0) exit(2);
    fflush(0);
    pid_t b = fork();
    if (b < 0) { perror("victim-oom: fork"); exit(2); }
    if (b == 0) {
        char c = 1;
        if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1) _exit(3);
        _exit(0);
    }
    char c;
    if (read(ready[0], &c, 1) != 1) { fprintf(stderr, "victim-oom: child %d did not start\n", (int)b); exit(2); }
    // Root again, to look into the directory (the saved uid is 0).
    if (seteuid(0) != 0 || setegid(0) != 0) { perror("victim-oom: seteuid(0)"); exit(2); }
    int b_made = file_there(dir, b);
    if (write(go[1], &c, 1) != 1) { perror("victim-oom: write"); exit(2); }
    reap(b);
    int b_left = file_there(dir, b);
    printf("victim-oom: child nobody at _exit: breadcrumb file %s\n", a_left ? "left behind" : "removed");
    printf("victim-oom: child forked while nobody: breadcrumb file %s, %s at _exit\n",
           b_made ? "made" : "missing", b_left ? "left behind" : "removed");
    exit(!a_left && b_made && !b_left ? 0 : 1);
}
