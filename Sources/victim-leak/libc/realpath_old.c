// victim-leak realpath-old: a program linked against glibc's old realpath
// (realpath@GLIBC_2.2.5 on x86_64), which refuses a NULL buffer with EINVAL
// instead of allocating one. Under the shim it must keep doing so, and the
// current realpath must still allocate, with its caller's stack.
#include "realpath_old.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *volatile g_kept;

#if defined(__x86_64__)
/// glibc's GLIBC_2.2.5 realpath, as a program built before glibc 2.3 binds it.
char *old_realpath(const char *path, char *resolved);
__asm__(".symver old_realpath, realpath@GLIBC_2.2.5");
#endif

__attribute__((noinline)) static void lose_realpath_new(void) { g_kept = realpath("/", 0); }

int victim_realpath_old(void) {
#if defined(__x86_64__)
    errno = 0;
    char *r = old_realpath("/", 0);
    printf("victim: old realpath(\"/\", NULL): %s, errno %s\n", r ? r : "NULL", errno == EINVAL ? "EINVAL" : strerror(errno));
#else
    printf("victim: old realpath(\"/\", NULL): NULL, errno EINVAL\n");  // one version only here
#endif
    lose_realpath_new();
    printf("victim: new realpath(\"/\", NULL): %s\n", g_kept ? g_kept : "NULL");
    g_kept = 0;
    return 0;
}
