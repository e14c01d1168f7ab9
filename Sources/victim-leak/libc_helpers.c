// victim-leak libc-helpers: blocks that libc allocates for its caller, each
// lost from a named function: strdup, strndup, asprintf, asprintf under
// _FORTIFY_SOURCE (__asprintf_chk), getline, realpath and getcwd(NULL, 0).
// libc keeps no frame pointers: these blocks' stacks used to stop in libc.
#include "libc_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/// What glibc's fortified asprintf calls (declared only when fortifying).
extern int __asprintf_chk(char **out, int flag, const char *fmt, ...);

static char *volatile g_last;

__attribute__((noinline)) static void lose_strdup(void) { g_last = strdup("a string from strdup"); }
__attribute__((noinline)) static void lose_strndup(void) { g_last = strndup("a string from strndup", 9); }
__attribute__((noinline)) static void lose_asprintf(void) {
    char *s;
    if (asprintf(&s, "%s %d", "asprintf", 1) > 0) g_last = s;
}
__attribute__((noinline)) static void lose_asprintf_chk(void) {
    char *s;
    if (__asprintf_chk(&s, 1, "%s %d", "__asprintf_chk", 2) > 0) g_last = s;
}
__attribute__((noinline)) static void lose_getline(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char *line = 0;
    size_t cap = 0;
    if (f && getline(&line, &cap, f) > 0) g_last = line;
    if (f) fclose(f);
}
__attribute__((noinline)) static void lose_realpath(void) { g_last = realpath("/proc/self/exe", 0); }
__attribute__((noinline)) static void lose_getcwd(void) { g_last = getcwd(0, 0); }

int victim_libc_helpers(void) {
    lose_strdup();
    lose_strndup();
    lose_asprintf();
    lose_asprintf_chk();
    lose_getline();
    lose_realpath();
    lose_getcwd();
    g_last = 0;
    printf("victim: lost blocks from strdup, strndup, asprintf, __asprintf_chk, getline, realpath and getcwd\n");
    return 0;
}
