// victim-heap double-free-out-of-fds-refill: a program that has used up
// its fds frees a block twice, then opens files again until none is left
// (as a program leaking fds goes on doing), then frees another block twice.
// The first report closes the reserve fd to use its number; unless the
// reserve is taken back when the report is done, the program's next open
// takes that number and the second report has no fd for its file (it goes
// to stderr instead). Run with FAULTLINE_HALT_ON_ERROR=0.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "victim_fds.h"
#include "victim_heap.h"

#define NOINLINE __attribute__((noinline))

NOINLINE static void *victim_refill_alloc(void) { return malloc(56); }
NOINLINE static void victim_refill_free(void *p) { free(p); }

// One block freed twice.
NOINLINE static void victim_refill_double_free(void) {
    void *p = victim_refill_alloc();
    victim_refill_free(p);
    victim_refill_free(p);
}

int double_free_out_of_fds_refill(void) {
    int n = victim_use_up_fds();
    printf("victim: opened %d fds until %s\n", n, errno == EMFILE ? "EMFILE" : "another error");
    victim_refill_double_free();
    int more = victim_use_up_fds() - n;
    printf("victim: %d more fd(s) after the first report\n", more);
    victim_refill_double_free();
    victim_release_fds();
    return 0;
}
