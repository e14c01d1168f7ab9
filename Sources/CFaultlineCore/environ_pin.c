#include "environ_pin.h"

#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

extern char **environ;

void fl_environ_pin(void) {
    char **env = environ;
    if (!env) return;
    size_t n = 0;
    while (env[n]) n++;
    // glibc's setenv reallocs only the array it allocated itself
    // (last_environ); with `environ` pointing elsewhere, it copies from
    // here into a new array and leaves this one alone.
    char **copy = mmap(0, (n + 1) * sizeof *copy, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (copy == MAP_FAILED) return;
    memcpy(copy, env, (n + 1) * sizeof *copy);
    environ = copy;
}
