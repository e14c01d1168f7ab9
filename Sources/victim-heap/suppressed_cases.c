// Heap errors made where a suppression names them by what only that place
// has: a library's path, and a thread holding the loader's lock.
#include "victim_paths.h"
#include "victim_heap.h"
#include "victim_threads.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static long g_not_heap[4];

int invalid_free_in_library(void) {
    char path[PATH_MAX];
    if (victim_beside_self(path, sizeof path, "libVictimDeepbind.so") != 0) { perror("victim: /proc/self/exe"); return 2; }
    // Not deep-bound: the library's free is the one the program has.
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    void (*release)(void *) = lib ? (void (*)(void *))dlsym(lib, "deepbind_release") : 0;
    if (!release) { fprintf(stderr, "victim: %s\n", dlerror()); return 2; }
    fprintf(stderr, "victim: libVictimDeepbind.so frees a global variable\n");
    release(&g_not_heap[1]);
    printf("victim: the invalid free returned\n");
    return 0;
}

NOINLINE static void victim_main_double_free(void) {
    void *volatile p = malloc(40);
    free(p);
    free(p);
}

// Lets the constructor go 300 ms after main started its double free, so
// that main is waiting for the loader's lock (in dladdr) by then.
static void *release_later(void *unused) {
    (void)unused;
    usleep(300000);
    victim_release_dlopen_holder();
    return 0;
}

int double_free_loader_locked(void) {
    setenv("VICTIM_CTOR_DOUBLE_FREE", "1", 1);
    if (victim_start_dlopen_holder() != 0) { fprintf(stderr, "victim: cannot start the dlopen\n"); return 2; }
    pthread_t t;
    pthread_create(&t, 0, release_later, 0);
    fprintf(stderr, "victim: freeing a block twice while a constructor holds the loader's lock, and then freeing one twice in it\n");
    victim_main_double_free();
    pthread_join(t, 0);
    printf("victim: both double frees returned\n");
    return 0;
}
