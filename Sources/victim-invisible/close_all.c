// A program that closes every descriptor above 2 (a daemon, a sandbox,
// Python's subprocess with close_fds) and lists what is left must see
// nothing of Faultline's; and Faultline still works after it: the crash
// that follows is reported.
#include "invisible_cases.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((noinline)) static void invisible_crash_after_close_all(void) {
    volatile int *p = 0;
    *p = 1;
}

int invisible_close_all(int argc, char **argv) {
    const char *how = argc > 2 ? argv[2] : "close_range";
    if (strcmp(how, "loop") == 0) {
        struct rlimit rl;
        getrlimit(RLIMIT_NOFILE, &rl);
        for (long fd = 3; fd < (long)rl.rlim_cur; fd++) close((int)fd);
    } else if (strcmp(how, "closefrom") == 0) {
        closefrom(3);
    } else {
        close_range(3, ~0u, 0);
    }
    // As CPython's fd_status does: fstat of every number below the limit.
    long max = sysconf(_SC_OPEN_MAX);
    printf("close-all (%s): fds below the limit:", how);
    struct stat st;
    for (long fd = 0; fd < max; fd++)
        if (fstat((int)fd, &st) == 0) printf(" %ld", fd);
    printf("\n");
    // And /proc/self/fd, read with raw calls: no malloc, so nothing of the
    // shim's runs between the close and the listing.
    int d = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d < 0) return 2;
    printf("close-all (%s): in /proc/self/fd:", how);
    char buf[4096];
    long n;
    while ((n = syscall(SYS_getdents64, d, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n;) {
            struct linux_dirent64 { unsigned long long ino; long long off; unsigned short reclen; unsigned char type; char name[]; } *e = (void *)(buf + off);
            off += e->reclen;
            if (e->name[0] == '.' || atoi(e->name) == d) continue;
            char link[64], target[256];
            snprintf(link, sizeof link, "/proc/self/fd/%s", e->name);
            ssize_t k = readlink(link, target, sizeof target - 1);
            target[k > 0 ? k : 0] = 0;
            if (atoi(e->name) > 2) printf(" %s->%s", e->name, target);
            else printf(" %s", e->name);
        }
    }
    close(d);
    printf("\n");
    fflush(stdout);
    // `exhaust`: then use up every fd (an fd leak), so the crash report
    // has only what the agent kept for it.
    if (argc > 3 && strcmp(argv[3], "exhaust") == 0) {
        int opened = 0;
        while (open("/dev/null", O_RDONLY) >= 0) opened++;
        printf("close-all (%s): opened %d more fds until EMFILE\n", how, opened);
        fflush(stdout);
    }
    fprintf(stderr, "close-all: crashing\n");
    invisible_crash_after_close_all();
    return 0;
}
