// A library victim-heap loads with dlopen(RTLD_DEEPBIND): its own calls to
// malloc and free bind to glibc's, not to an LD_PRELOADed malloc shim.
#include "deepbind_lib.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

char *deepbind_copy(const char *text) {
    size_t n = strlen(text) + 1;
    char *p = malloc(n);  // glibc's malloc, whatever is preloaded
    if (p) memcpy(p, text, n);
    return p;
}

void deepbind_release(void *p) { free(p); }  // glibc's free

size_t deepbind_usable_size(void *p) { return malloc_usable_size(p); }  // glibc's
