// victim-heap realloc-growth-early-mallopt: the program sets glibc's mmap
// threshold before the malloc shim's constructor has run. ld.so runs the
// executable's DT_PREINIT_ARRAY before any library's constructor, the
// LD_PRELOAD ones included (a constructor of a library the program needs
// also runs before a preloaded one's: later in load order, earlier in
// initialisation), so this mallopt reaches the shim's interposed one while
// the shim is still unconfigured; its constructor must then leave the
// threshold alone.
#include "victim_heap.h"

#include <malloc.h>
#include <stdio.h>
#include <string.h>

static int g_early_rc = -1;  // mallopt's result; -1: not called

// A preinit_array entry gets main's arguments: only this command sets it.
static void early_mallopt(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc > 1 && strcmp(argv[1], "realloc-growth-early-mallopt") == 0) g_early_rc = mallopt(M_MMAP_THRESHOLD, 128 * 1024);
}

__attribute__((section(".preinit_array"), used)) static void (*const k_preinit)(int, char **, char **) = early_mallopt;

int realloc_growth_early_mallopt(void) {
    if (g_early_rc != 1) { printf("victim: the early mallopt %s\n", g_early_rc < 0 ? "did not run" : "failed"); return 1; }
    printf("victim: mallopt(M_MMAP_THRESHOLD) ran from preinit_array, before every constructor\n");
    return realloc_growth();
}
