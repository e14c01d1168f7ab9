// A library loaded with dlopen(RTLD_DEEPBIND) binds its own malloc and
// free to glibc's, past the preloaded shim: the program frees (and
// reallocates) memory the library allocated.
#include "victim_paths.h"
#include <dlfcn.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "victim_heap.h"

#define NOINLINE __attribute__((noinline))

// libVictimDeepbind.so sits beside this program in the build directory.
static void *load_library(void) {
    char path[PATH_MAX];
    if (victim_beside_self(path, sizeof path, "libVictimDeepbind.so") != 0) return NULL;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h) fprintf(stderr, "victim: %s\n", dlerror());
    return h;
}

NOINLINE void victim_free_library_memory(char *p) { free(p); }

int deepbind(void) {
    void *h = load_library();
    if (!h) return 3;
    char *(*copy)(const char *) = (char *(*)(const char *))dlsym(h, "deepbind_copy");
    size_t (*usable)(void *) = (size_t (*)(void *))dlsym(h, "deepbind_usable_size");
    if (!copy || !usable) return 3;
    char *a = copy("from the library"), *b = copy("grown by the program");
    printf("victim: the library returned '%s'\n", a);
    // The program's malloc_usable_size (the shim's) of the library's block
    // must give what glibc gives, not 0.
    size_t mine = malloc_usable_size(a), glibc = usable(a);
    printf("victim: malloc_usable_size of the library's block: %zu (glibc says %zu)\n", mine, glibc);
    if (mine != glibc || mine < strlen(a) + 1) return 1;
    fflush(stdout);
    b = realloc(b, 4000);  // a library block reallocated by the program
    if (!b || strcmp(b, "grown by the program") != 0) { printf("victim: realloc lost the contents\n"); return 1; }
    victim_free_library_memory(a);
    free(b);
    printf("victim: freed the library's blocks\n");
    return 0;
}

NOINLINE void victim_free_inside(long *p) { free(p); }

// After a DEEPBIND load, an interior pointer into one of the program's own
// (shim) blocks whose data looks like a glibc chunk header must still be
// an invalid free, not be handed to glibc.
int deepbind_interior(void) {
    if (!load_library()) return 3;
    long *block = malloc(4096);  // over the arena's limit: in glibc's heap
    block[0] = 0;
    block[1] = 64 | 1;  // "a 64-byte chunk, previous in use" in front of block + 2
    block[9] = 48 | 1;  // the "next chunk" says that one is in use
    fprintf(stderr, "victim: freeing a pointer 16 bytes into a block that looks like a glibc chunk there\n");
    victim_free_inside(block + 2);
    return 1;
}

NOINLINE void *victim_grow_to(void *p, size_t size) { return realloc(p, size); }

// The same 2 MiB into a block grown by realloc to 4 MiB, which under the
// shim comes from glibc's heap: further back than the usual 1 MiB scan
// for the block's header.
int deepbind_interior_deep(void) {
    if (!load_library()) return 3;
    char *block = victim_grow_to(malloc(64), 4u << 20);
    long *inside = (long *)(block + (2u << 20));
    inside[0] = 0;
    inside[1] = 64 | 1;
    inside[9] = 48 | 1;
    fprintf(stderr, "victim: freeing a pointer 2 MiB into a grown block that looks like a glibc chunk there\n");
    victim_free_inside(inside + 2);
    return 1;
}
