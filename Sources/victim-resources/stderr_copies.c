// Python's os.dup and Rust's std save stderr with fcntl(2, F_DUPFD_CLOEXEC,
// …) and write to the copy: those lines are the program's stderr as much
// as a write to fd 2, and a crash report's stderr_tail must have them.
#include "stderr_copies.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static void say(int fd, const char *line) {
    ssize_t w = write(fd, line, strlen(line));
    (void)w;
}

/// Stores through NULL: the crash whose report carries the tail.
NOINLINE void victim_crash_after_stderr_copies(void) {
    volatile int *p = 0;
    *p = 1;
}

int stderr_fcntl_copy_then_crash(int argc, char **argv, char **envp) {
    (void)envp;
    int cmd = argc > 2 && strcmp(argv[2], "F_DUPFD") == 0 ? F_DUPFD : F_DUPFD_CLOEXEC;
    const char *name = cmd == F_DUPFD ? "F_DUPFD" : "F_DUPFD_CLOEXEC";
    int copy = fcntl(2, cmd, 20);
    int again = fcntl(copy, cmd, 30);  // a copy of the copy
    if (copy < 20 || again < 30) { perror("victim: fcntl"); return 2; }
    char line[128];
    snprintf(line, sizeof line, "victim: write to fd %d, a fcntl(2, %s) copy\n", copy, name);
    say(copy, line);
    snprintf(line, sizeof line, "victim: write to fd %d, a copy of that copy\n", again);
    struct iovec iov[2] = {{line, strlen(line)}, {"victim: then writev\n", 20}};
    ssize_t w = writev(again, iov, 2);
    (void)w;
    victim_crash_after_stderr_copies();
    return 1;
}
