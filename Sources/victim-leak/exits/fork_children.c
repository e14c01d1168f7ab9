#include "fork_children.h"
#include "../leak_sites.h"
#include "victim_leak_check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static void leak_33_in_child(void) {
    volatile char *p = malloc(33);
    p[0] = 1;
    p = 0;
}

int victim_fork_children(int n) {
    fill_cache();  // reachable; each child frees the parent's blocks it inherited
    leak_77();
    victim_clear_stack();
    for (int i = 0; i < n; i++) {
        fflush(0);
        pid_t p = fork();
        if (p < 0) { perror("victim: fork"); return 2; }
        if (p == 0) {
            for (int k = 0; k < 100; k += 1 + k % 3) { free(g_cache[k]); g_cache[k] = 0; }
            leak_33_in_child();
            victim_clear_stack();
            exit(0);
        }
        int status;
        while (waitpid(p, &status, 0) < 0 && errno == EINTR) {}
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) { printf("victim: child %d did not exit 0\n", i); return 1; }
    }
    printf("victim: lost 77 bytes, then %d forked children lost 33 bytes each and exited\n", n);
    return 0;
}
