// victim-cxx alloc/dealloc mismatch cases: a block released by the wrong
// family of function, each allocation and release in a named, non-inlined
// function so scenarios can expect them as frame 0 of the stacks. The
// blocks hold `char`, which has no destructor: new[] then puts no element
// count in front of the array, so delete and free get the pointer new[]
// returned (with a destructor they would get another one: an invalid free).
//
//   heap-mismatch-new-array-delete   new[] then delete
//   heap-mismatch-new-free           new then free
//   heap-mismatch-malloc-delete      malloc then delete
//   heap-mismatch-new-delete-array   new then delete[]
//   heap-mismatch-new-realloc        new[] then realloc (AddressSanitizer
//                                    reports it too) and free
//   heap-mismatch-matched            every allocation function with its own
//                                    release: no report, exits 0
//
// After a release that returns (FAULTLINE_HALT_ON_ERROR=0) each prints
// "victim: still running" and exits 0.
#include "heap_mismatch.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <new>

#define MISMATCH_NOINLINE __attribute__((noinline))

// The pairs are wrong on purpose.
#pragma clang diagnostic ignored "-Wmismatched-new-delete"

// Through a volatile pointer, so the compiler sees no pair to judge.
static char *volatile g_block;

MISMATCH_NOINLINE char *victim_alloc_array() { return new char[40]; }
MISMATCH_NOINLINE char *victim_alloc_one() { return new char; }
MISMATCH_NOINLINE char *victim_alloc_malloc() { return (char *)malloc(24); }
MISMATCH_NOINLINE void victim_release_delete(char *p) { delete p; }
MISMATCH_NOINLINE void victim_release_delete_array(char *p) { delete[] p; }
MISMATCH_NOINLINE void victim_release_free(char *p) { free(p); }
MISMATCH_NOINLINE char *victim_release_realloc(char *p) { return (char *)realloc(p, 80); }

namespace {
struct alignas(64) Line64 {
    char bytes[64];
};
}  // namespace

// Every allocation function with its matching release, as a correct
// program does: nothing to report.
MISMATCH_NOINLINE static int matched() {
    free(malloc(10));
    free(calloc(3, 8));
    char *r = (char *)malloc(8);
    r = (char *)realloc(r, 100);
    r = (char *)reallocarray(r, 4, 50);
    free(r);
    void *pm = 0;
    if (posix_memalign(&pm, 64, 100) == 0) free(pm);
    free(aligned_alloc(128, 256));
    free(memalign(32, 48));
    free(valloc(10));
    free(pvalloc(10));
    free(strdup("matched"));
    free(strndup("matched pairs", 7));
    delete new int(3);
    delete[] new int[7];
    delete new (std::nothrow) long(4);
    delete[] new (std::nothrow) char[9];
    delete new Line64;
    delete[] new Line64[2];
    operator delete(operator new(16), std::nothrow);
    operator delete[](operator new[](32, std::align_val_t(128)), std::align_val_t(128));
    void *sized = operator new(24);
    operator delete(sized, 24);
    void *sized_array = operator new[](48);
    operator delete[](sized_array, 48);
    // realloc of NULL is malloc, and its block goes to free.
    free(realloc(0, 30));
    printf("victim: every allocation released by its own function\n");
    return 0;
}

// realloc's block is malloc's: its free is no mismatch.
MISMATCH_NOINLINE void victim_grow_then_free(char *p) { victim_release_free(victim_release_realloc(p)); }

namespace {
struct mismatch_case {
    const char *command;
    char *(*alloc)();
    void (*release)(char *);
    const char *says;
};
const mismatch_case g_cases[] = {
    {"heap-mismatch-new-array-delete", victim_alloc_array, victim_release_delete, "new[] released with delete"},
    {"heap-mismatch-new-free", victim_alloc_one, victim_release_free, "new released with free"},
    {"heap-mismatch-malloc-delete", victim_alloc_malloc, victim_release_delete, "malloc released with delete"},
    {"heap-mismatch-new-delete-array", victim_alloc_one, victim_release_delete_array, "new released with delete[]"},
    {"heap-mismatch-new-realloc", victim_alloc_array, victim_grow_then_free, "new[] grown with realloc"},
};
}  // namespace

int victim_mismatch_main(int argc, char **argv) {
    const char *c = argv[1];
    if (!strcmp(c, "heap-mismatch-matched")) return matched();
    for (const mismatch_case &m : g_cases) {
        if (strcmp(c, m.command)) continue;
        g_block = m.alloc();
        fprintf(stderr, "victim: %s\n", m.says);
        m.release(g_block);
        printf("victim: still running\n");
        return 0;
    }
    fprintf(stderr, "victim-cxx: unknown heap-mismatch command '%s'\n", c);
    return 2;
}
