#include "shim_real.h"

#include <dlfcn.h>

shim_next shim_next_fns;

int shim_next_resolve(void) {
    // dlsym may allocate (dlerror's buffer): those calls come back into the
    // shim, which serves them from glibc with a header as usual.
    shim_next n;
    n.malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    n.free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    n.calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    n.realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    n.posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
    n.aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
    n.memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
    n.valloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "valloc");
    n.pvalloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "pvalloc");
    n.malloc_usable_size = (size_t (*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
    if (!n.malloc || !n.free || !n.calloc || !n.realloc || !n.posix_memalign || !n.memalign || !n.malloc_usable_size)
        return -1;
    shim_next_fns = n;
    return 0;
}
