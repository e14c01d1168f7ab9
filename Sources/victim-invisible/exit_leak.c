// A program that leaves by _exit (os._exit in a forked worker) or a raw
// exit_group runs no destructor: its leak check must run all the same.
#include "invisible_cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((noinline)) static void invisible_lose_block(void) {
    volatile char *lost = malloc(48);
    lost[0] = 1;
}

int invisible_exit_leak(int argc, char **argv) {
    const char *how = argc > 2 ? argv[2] : "_exit";
    invisible_lose_block();
    fprintf(stderr, "exit-leak: leaving by %s\n", how);
    if (strcmp(how, "exit_group") == 0) syscall(SYS_exit_group, 0);
    _exit(0);
}
