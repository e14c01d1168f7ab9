// What a program sees of Faultline's descriptors: `list-fds` lists every fd
// above 2 in /proc/self/fd by its kind (the agent and the shim should hold
// as few as they can, opened lazily); `child-after-close-all` closes every
// fd above 2, as Python's subprocess does between fork and exec, then runs
// `list-fds` in a child, whose own agent and shim have just started.
#include "invisible_cases.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

// "pipe", "/dev/null", "/proc", "/sys", "anon_inode" or the path's first
// component: enough to say what each fd is, and the same on every machine.
static void kind_of(const char *target, char *out, size_t cap) {
    const char *end = strchr(target, ':');
    if (end && target[0] != '/') { snprintf(out, cap, "%.*s", (int)(end - target), target); return; }
    if (strcmp(target, "/dev/null") == 0) { snprintf(out, cap, "/dev/null"); return; }
    const char *slash = target[0] == '/' ? strchr(target + 1, '/') : 0;
    snprintf(out, cap, "%.*s", slash ? (int)(slash - target) : (int)strlen(target), target);
}

int invisible_list_fds(int argc, char **argv) {
    const char *label = argc > 2 ? argv[2] : "list-fds";
    int d = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d < 0) return 2;
    char kinds[2048] = "";
    int count = 0;
    char buf[4096];
    long n;
    while ((n = syscall(SYS_getdents64, d, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n;) {
            struct { unsigned long long ino; long long off; unsigned short reclen; unsigned char type; char name[]; } *e = (void *)(buf + off);
            off += e->reclen;
            int fd = atoi(e->name);
            if (e->name[0] == '.' || fd == d || fd <= 2) continue;
            char link[64], target[256], kind[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
            ssize_t k = readlink(link, target, sizeof target - 1);
            target[k > 0 ? k : 0] = 0;
            kind_of(target, kind, sizeof kind);
            size_t used = strlen(kinds);
            snprintf(kinds + used, sizeof kinds - used, " %s", kind);
            count++;
        }
    }
    close(d);
    printf("%s: %d fd(s) above 2:%s\n", label, count, kinds);
    fflush(stdout);
    return 0;
}

int invisible_child_after_close_all(int argc, char **argv) {
    (void)argc; (void)argv;
    char self[4096];
    if (invisible_self(self, sizeof self) != 0) return 64;
    close_range(3, ~0u, 0);
    pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, "list-fds", "child after close-all", (char *)0);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
