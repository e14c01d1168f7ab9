// A thread whose dlopen holds the loader's lock (the lock dlopen and dlsym
// take) while libVictimDeepbind's constructor, which that dlopen runs,
// waits on a pipe (ctor_wait.c in victim-deepbind-lib).
#include "victim_paths.h"
#include "victim_threads.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int g_release[2], g_ready[2];
static pthread_t g_loader;

static void *dlopen_waiting_library(void *arg) {
    (void)arg;
    char path[PATH_MAX];
    if (victim_beside_self(path, sizeof path, "libVictimDeepbind.so") != 0) return 0;
    char fd[16];
    snprintf(fd, sizeof fd, "%d", g_release[0]);
    setenv("VICTIM_CTOR_WAIT_FD", fd, 1);
    snprintf(fd, sizeof fd, "%d", g_ready[1]);
    setenv("VICTIM_CTOR_READY_FD", fd, 1);
    if (!dlopen(path, RTLD_NOW | RTLD_LOCAL)) fprintf(stderr, "victim: %s\n", dlerror());
    return 0;
}

int victim_start_dlopen_holder(void) {
    char c;
    if (pipe(g_release) != 0 || pipe(g_ready) != 0) return -1;
    if (pthread_create(&g_loader, 0, dlopen_waiting_library, 0) != 0) return -1;
    return read(g_ready[0], &c, 1) == 1 ? 0 : -1;  // the constructor runs: the lock is held
}

void victim_release_dlopen_holder(void) {
    if (write(g_release[1], "x", 1) != 1) return;
    pthread_join(g_loader, 0);
}
