#include "invisible_cases.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int invisible_exec_self(int argc, char **argv) {
    char self[PATH_MAX], dir[PATH_MAX], faultline[PATH_MAX + 16];
    if (argc < 3 || invisible_self(self, sizeof self) != 0) return 64;
    strcpy(dir, self);
    snprintf(faultline, sizeof faultline, "%s/faultline", dirname(dir));
    const char *reports = getenv("FAULTLINE_REPORT_DIR");
    char *args[64];
    int n = 0;
    args[n++] = faultline;
    args[n++] = "exec";
    args[n++] = "--detectors";
    args[n++] = getenv("INVISIBLE_DETECTORS") ? getenv("INVISIBLE_DETECTORS") : "all";
    if (reports) { args[n++] = "--report-dir"; args[n++] = (char *)reports; }
    args[n++] = "--";
    args[n++] = self;
    for (int i = 2; i < argc && n < 63; i++) args[n++] = argv[i];
    args[n] = 0;
    // INVISIBLE_NOFILE=N: run with a soft fd limit of N (the usual 1024,
    // below a higher hard limit, whatever the machine's default); `hard`:
    // the soft limit set to the hard one (`ulimit -Sn $(ulimit -Hn)`, this
    // VM's 20000/20000, Docker's 1048576/1048576); `N:M`: soft N, hard M
    // (lowering the hard limit needs no privilege).
    if (getenv("INVISIBLE_NOFILE")) {
        struct rlimit rl;
        getrlimit(RLIMIT_NOFILE, &rl);
        const char *want = getenv("INVISIBLE_NOFILE");
        const char *colon = strchr(want, ':');
        rl.rlim_cur = strcmp(want, "hard") == 0 ? rl.rlim_max : (rlim_t)atol(want);
        if (colon) rl.rlim_max = (rlim_t)atol(colon + 1);
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
            perror("victim-invisible: setrlimit(RLIMIT_NOFILE) from INVISIBLE_NOFILE");
            return 64;
        }
    }
    // The runner's own settings are not the program's: exec sets its own.
    unsetenv("FAULTLINE_DETECTORS");
    unsetenv("FAULTLINE_CAPTURE_STDERR");
    execv(faultline, args);
    perror("victim-invisible: exec faultline");
    return 127;
}

int invisible_script_self(int argc, char **argv) {
    char self[PATH_MAX], command[4096];
    if (argc < 3 || invisible_self(self, sizeof self) != 0) return 64;
    size_t n = (size_t)snprintf(command, sizeof command, "%s exec-self", self);
    for (int i = 2; i < argc && n < sizeof command; i++) n += (size_t)snprintf(command + n, sizeof command - n, " %s", argv[i]);
    execlp("script", "script", "-qec", command, "/dev/null", (char *)0);
    perror("victim-invisible: exec script");
    return 127;
}
