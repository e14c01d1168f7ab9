// write-slow-pipe: an event loop's thread (it idles in poll on an eventfd
// first) that then writes 1 MiB into a pipe whose reader, a child, starts
// reading only after MS ms, as `curl URL | slow-consumer` does once curl
// has polled its socket: the write blocks until the reader catches up.
// That is the other process's pace, not a hang of this one.
#include "victim_event_loop.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/// Child: sleeps `ms`, then reads the pipe to its end.
static void slow_reader(int fd, int ms) {
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
    char buf[65536];
    while (read(fd, buf, sizeof buf) > 0) {}
    _exit(0);
}

/// Writes all of `len` bytes, blocking while the pipe is full.
__attribute__((noinline)) static int write_to_slow_reader(int fd, const char *p, size_t len) {
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int victim_cmd_write_slow_pipe(int argc, char **argv, char **envp) {
    int ms = argc > 2 ? atoi(argv[2]) : 3000;
    victim_idle_like_event_loop(800);
    int fds[2];
    if (pipe(fds) != 0) { perror("victim: pipe"); return 3; }
    pid_t child = fork();
    if (child < 0) { perror("victim: fork"); return 3; }
    if (child == 0) { close(fds[1]); slow_reader(fds[0], ms); }
    close(fds[0]);
    static char data[1 << 20];
    memset(data, 'x', sizeof data);
    fprintf(stderr, "victim: writing 1 MiB into a pipe its reader drains only after %d ms\n", ms);
    int rc = write_to_slow_reader(fds[1], data, sizeof data);
    close(fds[1]);
    int status;
    waitpid(child, &status, 0);
    if (rc != 0) { perror("victim: write"); return 3; }
    fprintf(stderr, "victim: write-slow-pipe: done\n");
    return 0;
}
