// victim_rerun_with_suppressions: `VICTIM suppressed LINES COMMAND [ARGS]`.
#include "victim_suppressions.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int victim_rerun_with_suppressions(const char *lines, const char *program, char **args) {
    FILE *f = fopen("victim.supp", "w");
    if (!f || fprintf(f, "%s\n", lines) < 0 || fclose(f) != 0) { perror("victim: victim.supp"); return 2; }
    char path[PATH_MAX];
    if (!getcwd(path, sizeof path - 16)) { perror("victim: getcwd"); return 2; }
    strcat(path, "/victim.supp");
    setenv("FAULTLINE_SUPPRESSIONS", path, 1);
    int n = 0;
    while (args[n]) n++;
    char **argv = calloc((size_t)n + 2, sizeof *argv);
    argv[0] = (char *)program;
    memcpy(argv + 1, args, (size_t)n * sizeof *argv);
    execv("/proc/self/exe", argv);
    perror("victim: /proc/self/exe");
    return 2;
}
