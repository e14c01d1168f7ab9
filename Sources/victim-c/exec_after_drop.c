// Programs that change user and then exec, for the scenarios about the
// report directory of the program they start (docs/reports.md, "A program
// that changes user"):
//   victim-c exec-as-nobody PROG [ARGS…]: as root, become user 65534 for a
//     while (seteuid: real uid 0) and exec PROG, a product next to victim-c
//     when it has no '/'. The kernel makes the saved uid 65534 at the exec;
//     the real uid stays 0.
//   victim-c refused-siblings [N=4] [HOW=permanent]: as root, fork a server
//     that becomes 65534 for good (HOW permanent: setresuid) or for a
//     while (temporary: seteuid), then starts N children at once, each
//     exec'ing `victim-c exit`; the stderr of the whole tree below (the
//     server's and the children's) is read through a pipe: how often the
//     agents in it say that they cannot write into the report directory.
#include "victim_euid.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/// `name` when it has a '/', else `name` in victim-c's own directory.
static void product_path(const char *name, char *out, size_t cap) {
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = 0;
    char *slash = strrchr(self, '/');
    if (strchr(name, '/') || !slash) { snprintf(out, cap, "%s", name); return; }
    *slash = 0;
    snprintf(out, cap, "%s/%s", self, name);
}

int victim_exec_as_nobody(char **argv) {
    if (!argv[0]) { fprintf(stderr, "victim: exec-as-nobody needs a program\n"); return 2; }
    char path[PATH_MAX];
    product_path(argv[0], path, sizeof path);
    if (victim_become_nobody("temporary") != 0) return 3;
    fflush(0);
    execv(path, argv);
    fprintf(stderr, "victim: exec %s: %s\n", path, strerror(errno));
    return 127;
}

// The server: becomes 65534 (`how`: victim_become_nobody), then starts `n`
// workers at once, each exec'ing `victim-c exit` (`self`), and waits for
// them. Its stderr is the parent's pipe already.
static _Noreturn void refused_server(int n, const char *how, const char *self) {
    if (victim_become_nobody(how) != 0) _exit(3);
    fflush(0);
    // Every worker is forked before any of them execs, as a server starts
    // its workers.
    int go[2];
    if (pipe(go) != 0) { perror("victim: pipe"); _exit(2); }
    for (int i = 0; i < n; i++) {
        pid_t p = fork();
        if (p < 0) { perror("victim: fork"); _exit(2); }
        if (p == 0) {
            char c;
            close(go[1]);
            if (read(go[0], &c, 1) < 0) _exit(3);  // EOF once every worker is forked
            execl(self, "victim-c", "exit", (char *)0);
            _exit(127);
        }
    }
    close(go[1]);
    while (wait(0) > 0 || errno == EINTR) {}
    _exit(0);
}

int victim_refused_siblings(char **args) {
    const char *count = args[0], *how = count && args[1] ? args[1] : "permanent";
    int n = count ? atoi(count) : 4;
    if (n < 1 || n > 64) { fprintf(stderr, "victim: refused-siblings needs 1 to 64 children, not '%s'\n", count); return 2; }
    char self[PATH_MAX];
    product_path("victim-c", self, sizeof self);
    // The whole tree below this process writes its stderr into one pipe:
    // the server that drops (its agent may say the line at the drop) and
    // the workers it starts.
    int err[2];
    if (pipe(err) != 0) { perror("victim: pipe"); return 2; }
    fflush(0);
    pid_t server = fork();
    if (server < 0) { perror("victim: fork"); return 2; }
    if (server == 0) {
        close(err[0]);
        dup2(err[1], 2);
        close(err[1]);
        refused_server(n, how, self);
    }
    close(err[1]);
    static char text[1 << 16];
    size_t len = 0;
    for (ssize_t r; len < sizeof text - 1 && ((r = read(err[0], text + len, sizeof text - 1 - len)) > 0 || (r < 0 && errno == EINTR));)
        if (r > 0) len += (size_t)r;
    text[len] = 0;
    int status = 0;
    while (waitpid(server, &status, 0) < 0 && errno == EINTR) {}
    fputs(text, stderr);
    int said = 0;
    for (const char *p = text; (p = strstr(p, "faultline: cannot write reports into")); p++) said++;
    printf("victim: a server that dropped %s started %d children at once; the tree said it cannot write reports %d time(s)\n",
           strcmp(how, "temporary") ? "for good" : "for a while", n, said);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 4;
}
