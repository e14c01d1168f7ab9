#include "fork_during_checks.h"
#include "../leak_sites.h"
#include "victim_leak_check.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int victim_fork_during_checks(int signo, int seconds) {
    lose_from_many_stacks(8192);
    victim_clear_stack();
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int children = 0;
    do {
        kill(getpid(), signo);
        for (int i = 0; i < 20; i++, children++) {
            fflush(0);
            pid_t p = fork();
            if (p < 0) { perror("victim: fork"); return 2; }
            if (p == 0) exit(0);  // runs the shim's exit check
            int status = 0, waited = 0;
            while (waitpid(p, &status, WNOHANG) == 0 && waited < 5000) { usleep(1000); waited++; }
            if (waited >= 5000) {
                printf("victim: child %d did not end within 5 s of exit(0) (its exit check hung)\n", children);
                kill(p, SIGKILL);
                waitpid(p, &status, 0);
                return 1;
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while (t.tv_sec - t0.tv_sec < seconds);
    printf("victim: %d children forked during leak checks all ended\n", children);
    return 0;
}
