// victim-invisible compile: builds a one-line C program with the system's
// gcc, whose driver runs cc1, as and collect2 (under /usr/lib/gcc, not
// /usr/bin): a test suite that builds code runs them by the hundred, and
// their leaks are not the user's.
#include "invisible_cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int invisible_compile(int argc, char **argv) {
    (void)argc, (void)argv;
    char dir[] = "/tmp/victim-compile-XXXXXX";
    if (!mkdtemp(dir)) { perror("victim: mkdtemp"); return 2; }
    char src[64], out[64];
    snprintf(src, sizeof src, "%s/a.c", dir);
    snprintf(out, sizeof out, "%s/a", dir);
    FILE *f = fopen(src, "w");
    if (!f) { perror("victim: fopen"); return 2; }
    fputs("int main(void) { return 0; }\n", f);
    fclose(f);
    pid_t pid = fork();
    if (pid == 0) {
        execlp("gcc", "gcc", src, "-o", out, (char *)0);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    unlink(out);
    unlink(src);
    rmdir(dir);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) { fprintf(stderr, "victim: gcc failed (status %d)\n", status); return 1; }
    printf("victim: gcc built a program\n");
    return 0;
}
