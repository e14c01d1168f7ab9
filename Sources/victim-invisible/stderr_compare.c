// A parent that runs children with pipes and compares what they wrote with
// what they were meant to write, byte for byte, as test suites do
// (CPython's test_subprocess, jq's tests through a sed pipeline): whatever
// Faultline says about the children (a leak, a crash the parent lives on
// after, a write after free) must not be in it. Their exit statuses are
// printed, not compared: a crash kills its child, and a write after free
// found at exit ends it with FAULTLINE_ERROR_EXITCODE, by design.
#include "invisible_cases.h"

#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct { const char *name, *out, *err; } k_children[] = {
    {"child-leak", "child-leak: out\n", "child-leak: err 1\nchild-leak: err 2\n"},
    {"child-crash", "child-crash: out\n", "child-crash: faulting\n"},
    {"child-write-after-free", "child-write-after-free: out\n", "child-write-after-free: wrote\n"},
};

// Runs `self CASE`; fills out/err (NUL-terminated). Returns its wait status.
static int run_child(const char *self, const char *name, char *out, size_t out_cap, char *err, size_t err_cap) {
    int o[2], e[2];
    if (pipe(o) != 0 || pipe(e) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(o[1], 1);
        dup2(e[1], 2);
        close(o[0]); close(o[1]); close(e[0]); close(e[1]);
        execl(self, self, name, (char *)0);
        _exit(127);
    }
    close(o[1]);
    close(e[1]);
    size_t n[2] = {0, 0};
    char *buf[2] = {out, err};
    size_t cap[2] = {out_cap - 1, err_cap - 1};
    struct pollfd p[2] = {{.fd = o[0], .events = POLLIN}, {.fd = e[0], .events = POLLIN}};
    int open_count = 2;
    while (open_count > 0) {
        if (poll(p, 2, -1) < 0) continue;
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0 || !p[i].revents) continue;
            ssize_t r = read(p[i].fd, buf[i] + n[i], cap[i] - n[i]);
            if (r > 0) { n[i] += (size_t)r; continue; }
            close(p[i].fd);
            p[i].fd = -1;
            open_count--;
        }
    }
    out[n[0]] = err[n[1]] = 0;
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

static void print_escaped(const char *label, const char *s) {
    printf("  %s: \"", label);
    for (; *s; s++) {
        if (*s == '\n') printf("\\n");
        else if ((unsigned char)*s < 32) printf("\\x%02x", (unsigned char)*s);
        else putchar(*s);
    }
    printf("\"\n");
}

int invisible_stderr_compare(int argc, char **argv) {
    char self[PATH_MAX];
    if (invisible_self(self, sizeof self) != 0) return 2;
    static char out[65536], err[65536];
    int differ = 0;
    for (size_t i = 0; i < sizeof k_children / sizeof k_children[0]; i++) {
        int status = run_child(self, k_children[i].name, out, sizeof out, err, sizeof err);
        int same = strcmp(out, k_children[i].out) == 0 && strcmp(err, k_children[i].err) == 0;
        printf("stderr-compare: %s: %s (", k_children[i].name, same ? "stdout and stderr unchanged" : "DIFFERENT");
        if (WIFSIGNALED(status)) printf("killed by signal %d)\n", WTERMSIG(status));
        else printf("exit %d)\n", WEXITSTATUS(status));
        if (!same) {
            differ = 1;
            print_escaped("stdout", out);
            print_escaped("stderr", err);
        }
    }
    fflush(stdout);
    return differ;
}

int invisible_child_leak(int argc, char **argv) {
    volatile char *lost = malloc(100);
    lost[0] = 1;
    lost = 0;
    printf("child-leak: out\n");
    fprintf(stderr, "child-leak: err 1\n");
    if (write(2, "child-leak: err 2\n", 18) != 18) return 3;
    return 0;
}

__attribute__((noinline)) static void invisible_fault(void) {
    volatile int *p = 0;
    *p = 1;
}

int invisible_child_crash(int argc, char **argv) {
    printf("child-crash: out\n");
    fflush(stdout);
    fprintf(stderr, "child-crash: faulting\n");
    invisible_fault();
    return 0;
}

int invisible_child_write_after_free(int argc, char **argv) {
    char *volatile p = malloc(64);
    free(p);
    p[8] = 'x';  // the quarantine's exit check finds it
    fprintf(stderr, "child-write-after-free: wrote\n");
    printf("child-write-after-free: out\n");
    return 0;
}
