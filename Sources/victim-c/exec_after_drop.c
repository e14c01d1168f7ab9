// Programs that change user and then exec, for the scenarios about the
// report directory of the program they start (docs/reports.md, "A program
// that changes user"):
//   victim-c exec-as-nobody PROG [ARGS…]: as root, become user 65534 for a
//     while (seteuid: real uid 0) and exec PROG, a product next to victim-c
//     when it has no '/'. The kernel makes the saved uid 65534 at the exec;
//     the real uid stays 0.
#include "victim_euid.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
