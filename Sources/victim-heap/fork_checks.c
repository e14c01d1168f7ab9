// victim-heap write-after-free-across-fork: the parent writes into a block
// it freed, then forks a child that frees and writes into a block of its
// own and exits normally. Each process must report its own write and only
// that: the child inherits the parent's changed block, but did not write it.
#include "victim_heap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static void *volatile g_sink;

NOINLINE void *victim_alloc_parent_block(void) { return malloc(72); }
NOINLINE void victim_free_parent_block(void *p) { free(p); }
NOINLINE void *victim_alloc_child_block(void) { return malloc(88); }
NOINLINE void victim_free_child_block(void *p) { free(p); }

int write_after_free_across_fork(void) {
    uint64_t *mine = victim_alloc_parent_block();
    victim_free_parent_block(mine);
    mine[2] = 0x1111111111111111;  // the parent's write after free
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        // Enough frees to push the parent's block out of a 4-block quarantine.
        for (int i = 0; i < 8; i++) { g_sink = malloc(72); free(g_sink); }
        uint64_t *own = victim_alloc_child_block();
        victim_free_child_block(own);
        own[3] = 0x2222222222222222;  // the child's write after free
        exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("victim: child exited with %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}
