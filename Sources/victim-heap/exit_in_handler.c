// victim-heap exit-in-handler: a program whose SIGSEGV handler calls exit
// faults inside free, in the middle of the shim's bookkeeping: the program
// made the page holding the previous block's header inaccessible
// (mprotect), and free reads that header's list links under the list's
// lock. The process must exit with the handler's status; the shim's checks
// at exit waited for the lock free still held (the handler runs on the
// same thread), forever.
#include "victim_heap.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static void on_segv(int sig) {
    (void)sig;
    static const char m[] = "victim: SIGSEGV inside free; the handler calls exit(3)\n";
    (void)!write(2, m, sizeof m - 1);
    exit(3);
}

NOINLINE void victim_protect(void *page) { mprotect(page, 4096, PROT_NONE); }

int exit_in_handler(void) {
    signal(SIGSEGV, on_segv);
    // 400-byte blocks until one's header starts on a page of its own: the
    // block before it (its neighbour in the live list) lies on the page
    // before, which is then made inaccessible.
    char *prev = malloc(400), *b = 0;
    for (int i = 0; i < 64; i++) {
        b = malloc(400);
        if (((uintptr_t)(b - 48) & ~(uintptr_t)4095) != ((uintptr_t)(prev - 48) & ~(uintptr_t)4095)) break;
        prev = b;
        b = 0;
    }
    if (!b) {
        printf("victim: no block on a page of its own after 64\n");
        return 2;
    }
    victim_protect((void *)((uintptr_t)(prev - 48) & ~(uintptr_t)4095));
    fflush(stdout);
    free(b);
    printf("victim: free returned\n");
    return 1;
}
