// victim-leak libc-wrapper-loader-locked: the program's first wcsdup and
// get_current_dir_name (wrapped by the shim) while another thread's dlopen holds
// the loader's lock: libVictimDeepbind's constructor, run by that dlopen,
// waits on a pipe until main has made the call.
#include "strdup_loader_locked.h"
#include "victim_threads.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

int victim_strdup_loader_locked(void) {
    if (victim_start_dlopen_holder() != 0) return 2;
    // Wrapped functions nothing in the process has called yet (strdup
    // itself may have been, by the time main runs).
    wchar_t *w = wcsdup(L"made while the loader's lock was held");
    char *d = get_current_dir_name();
    printf("victim: %ls (%s)\n", w, d ? "with the directory" : "no directory");
    free(w);
    free(d);
    victim_release_dlopen_holder();
    printf("victim: the loader's lock was released after\n");
    return 0;
}

int victim_exit_loader_locked(void) {
    if (victim_start_dlopen_holder() != 0) return 2;
    printf("victim: calling _exit while another thread's dlopen holds the loader's lock\n");
    fflush(stdout);
    _exit(0);
}
