// victim-leak libc-wrapper-loader-locked: the program's first wcsdup and
// get_current_dir_name (wrapped by the shim) while another thread's dlopen holds
// the loader's lock: libVictimDeepbind's constructor, run by that dlopen,
// waits on a pipe until main has made the call.
#include "strdup_loader_locked.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

static int g_release[2], g_ready[2];

static void *dlopen_waiting_library(void *arg) {
    (void)arg;
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
    if (n <= 0) return 0;
    path[n] = 0;
    strcpy(strrchr(path, '/') + 1, "libVictimDeepbind.so");
    char fd[16];
    snprintf(fd, sizeof fd, "%d", g_release[0]);
    setenv("VICTIM_CTOR_WAIT_FD", fd, 1);
    snprintf(fd, sizeof fd, "%d", g_ready[1]);
    setenv("VICTIM_CTOR_READY_FD", fd, 1);
    if (!dlopen(path, RTLD_NOW | RTLD_LOCAL)) fprintf(stderr, "victim: %s\n", dlerror());
    return 0;
}

int victim_strdup_loader_locked(void) {
    pthread_t loader;
    char c;
    if (pipe(g_release) != 0 || pipe(g_ready) != 0) return 2;
    if (pthread_create(&loader, 0, dlopen_waiting_library, 0) != 0) return 2;
    if (read(g_ready[0], &c, 1) != 1) return 2;  // the constructor runs: the lock is held
    // Wrapped functions nothing in the process has called yet (strdup
    // itself may have been, by the time main runs).
    wchar_t *w = wcsdup(L"made while the loader's lock was held");
    char *d = get_current_dir_name();
    printf("victim: %ls (%s)\n", w, d ? "with the directory" : "no directory");
    free(w);
    free(d);
    if (write(g_release[1], "x", 1) != 1) return 2;
    pthread_join(loader, 0);
    printf("victim: the loader's lock was released after\n");
    return 0;
}

int victim_exit_loader_locked(void) {
    pthread_t loader;
    char c;
    if (pipe(g_release) != 0 || pipe(g_ready) != 0) return 2;
    if (pthread_create(&loader, 0, dlopen_waiting_library, 0) != 0) return 2;
    if (read(g_ready[0], &c, 1) != 1) return 2;  // the constructor runs: the lock is held
    printf("victim: calling _exit while another thread's dlopen holds the loader's lock\n");
    fflush(stdout);
    _exit(0);
}
