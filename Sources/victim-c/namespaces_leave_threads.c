// victim-c namespaces-leave-threads: crash-after-namespaces threaded (thread
// 'prog-worker' runs, so the kernel refuses every step), with Faultline's
// threads' ids taken before and after the steps. Faultline stops and starts
// its threads again around such a call only when they are all that is in
// the way; with a thread of the program's running it must leave them be,
// so they keep their ids.
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "victim_namespaces.h"

#define NOINLINE __attribute__((noinline))
#define MAX_OWN 32

void victim_null_deref(void);  // main.c

// Fills `tids` with the ids of the threads named faultline-*; returns how
// many, or -1 when a thread other than the main one and 'prog-worker' has
// no such name yet (Faultline's threads name themselves as they first run,
// and their creators do not wait for that).
static int faultline_tids_once(long *tids) {
    int n = 0, unnamed = 0;
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    long self = (long)getpid();
    while (d && (e = readdir(d)) && n < MAX_OWN) {
        if (e->d_name[0] == '.' || atol(e->d_name) == self) continue;
        char path[300], name[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f && fgets(name, sizeof name, f) && !strncmp(name, "faultline-", 10)) tids[n++] = atol(e->d_name);
        else if (strncmp(name, "prog-worker", 11)) unnamed++;
        if (f) fclose(f);
    }
    if (d) closedir(d);
    return unnamed ? -1 : n;
}

// faultline_tids_once, waiting (at most a second) for every thread to have its name.
static int faultline_tids(long *tids) {
    int n = -1;
    for (int i = 0; i < 1000 && (n = faultline_tids_once(tids)) < 0; i++) usleep(1000);
    return n < 0 ? 0 : n;
}

// How many of `before` are missing from `after`.
static int gone(const long *before, int nb, const long *after, int na) {
    int missing = 0;
    for (int i = 0; i < nb; i++) {
        int found = 0;
        for (int j = 0; j < na; j++) found |= before[i] == after[j];
        missing += !found;
    }
    return missing;
}

NOINLINE void victim_namespaces_leave_threads(void) {
    long before[MAX_OWN], after[MAX_OWN];
    int nb = faultline_tids(before);
    int failed = victim_enter_namespaces(1);
    int na = faultline_tids(after), missing = gone(before, nb, after, na);
    fprintf(stderr, "victim: %d namespace step(s) failed\n", failed);
    if (nb == 0) fprintf(stderr, "victim: found no thread of Faultline's\n");
    else if (missing) fprintf(stderr, "victim: %d of Faultline's %d threads were started again\n", missing, nb);
    else fprintf(stderr, "victim: Faultline's threads kept their ids through the namespace steps (%d threads)\n", nb);
    victim_null_deref();
}
