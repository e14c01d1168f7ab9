// Finding the victim's own memory cgroup directory (own_cgroup.h).
#include "own_cgroup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void own_memory_cgroup(char *out, size_t cap) {
    char line[4096], mount[2048] = "", path[2048] = "";
    int v1 = 0;
    FILE *f = fopen("/proc/self/mountinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        char point[2048], type[64], opts[1024];
        const char *sep = strstr(line, " - ");
        if (!sep || sscanf(line, "%*s %*s %*s %*s %2047s", point) != 1 || sscanf(sep + 3, "%63s %*s %1023s", type, opts) != 2) continue;
        int memory = !strcmp(type, "cgroup") && (strstr(opts, ",memory") || !strncmp(opts, "memory", 6));
        if (memory || (!v1 && !strcmp(type, "cgroup2"))) { snprintf(mount, sizeof mount, "%s", point); v1 = memory; }
    }
    if (f) fclose(f);
    f = fopen("/proc/self/cgroup", "r");
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : 0;
        if (!c2) continue;
        *c2 = 0;
        int match = v1 ? (strstr(c1 + 1, "memory") != 0) : (c1[1] == 0);
        if (match) snprintf(path, sizeof path, "%s", c2 + 1);
    }
    if (f) fclose(f);
    if (!mount[0] || !path[0]) { fprintf(stderr, "victim-oom: no memory cgroup found\n"); exit(2); }
    snprintf(out, cap, "%s%s", mount, strcmp(path, "/") ? path : "");
}
