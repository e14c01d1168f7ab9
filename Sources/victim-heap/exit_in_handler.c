// victim-heap exit-in-handler: a program whose SIGSEGV handler calls exit
// faults inside free, in the middle of the shim's bookkeeping: a heap
// overflow wrote over the live-block links in front of the next block, and
// free follows them. The process must exit with the handler's status; the
// shim's checks at exit waited for the lock free still held (the handler
// runs on the same thread), forever.
#include "victim_heap.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static void on_segv(int sig) {
    (void)sig;
    static const char m[] = "victim: SIGSEGV inside free; the handler calls exit(3)\n";
    (void)!write(2, m, sizeof m - 1);
    exit(3);
}

NOINLINE void victim_overflow(char *block, size_t size) { memset(block + size, 0x41, 16); }

int exit_in_handler(void) {
    signal(SIGSEGV, on_segv);
    // 400 bytes + the 32-byte header + the 16-byte live link fill a
    // 448-byte arena class exactly; a fresh class hands out neighbours.
    char *a = malloc(400), *b = malloc(400);
    if ((uintptr_t)b != (uintptr_t)a + 448) {
        printf("victim: the blocks are not neighbours (%p, %p): is leak tracking on?\n", (void *)a, (void *)b);
        return 2;
    }
    victim_overflow(a, 400);  // over b's live-block links
    fflush(stdout);
    free(b);
    printf("victim: free returned\n");
    return 1;
}
