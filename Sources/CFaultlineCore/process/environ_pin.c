#include "environ_pin.h"

#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

extern char **environ;

// A copy of `environ` in an anonymous mapping, with `entry` ("NAME=value")
// in place of the variable of that name, or added; `environ` then points
// there. glibc's setenv reallocs only the array it allocated itself
// (last_environ); with `environ` pointing elsewhere, it copies from here
// into a new array and leaves this one alone.
static void pin(const char *entry) {
    char **env = environ;
    if (!env && !entry) return;
    size_t n = 0, name = entry ? strcspn(entry, "=") + 1 : 0;
    while (env && env[n]) n++;
    char **copy = mmap(0, (n + 2) * sizeof *copy, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (copy == MAP_FAILED) return;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!entry || strncmp(env[i], entry, name) != 0) copy[k++] = env[i];  // the old entry of that name is left out
    if (entry) copy[k++] = (char *)entry;
    copy[k] = 0;
    environ = copy;
}

void fl_environ_pin(void) { pin(0); }

void fl_environ_put(const char *entry) { pin(entry); }
