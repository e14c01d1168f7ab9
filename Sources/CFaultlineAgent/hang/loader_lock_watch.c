#include "loader_lock_watch.h"

#include <dlfcn.h>
#include <link.h>

typedef int (*dl_callback)(struct dl_phdr_info *, size_t, void *);
typedef int (*dl_iterate_phdr_fn)(dl_callback, void *);

static dl_iterate_phdr_fn g_real;
static int g_inside;           // threads inside dl_iterate_phdr, all of them
// How deep the calling thread is (callbacks may iterate again).
// initial-exec: read from signal handlers, where a dynamic TLS access could malloc.
static __thread int t_inside __attribute__((tls_model("initial-exec")));

// Resolved at load, not on first call: the first call can come from a
// signal handler (libunwind in the crash handler), where dlsym is not safe.
__attribute__((constructor)) static void resolve_real(void) {
    g_real = (dl_iterate_phdr_fn)dlsym(RTLD_NEXT, "dl_iterate_phdr");
}

/// Interposes dl_iterate_phdr: counts the caller in while glibc's runs.
__attribute__((visibility("default"))) int dl_iterate_phdr(dl_callback callback, void *data) {
    dl_iterate_phdr_fn real = __atomic_load_n(&g_real, __ATOMIC_ACQUIRE);
    if (__builtin_expect(!real, 0)) {
        resolve_real();
        real = g_real;
        if (!real) return 0;
    }
    // Counted before glibc takes the lock: a thread waiting for it counts
    // too, and it will hold it next.
    t_inside++;
    __atomic_add_fetch(&g_inside, 1, __ATOMIC_SEQ_CST);
    int result = real(callback, data);
    __atomic_sub_fetch(&g_inside, 1, __ATOMIC_SEQ_CST);
    t_inside--;
    return result;
}

int fl_loader_iteration_elsewhere(void) { return __atomic_load_n(&g_inside, __ATOMIC_SEQ_CST) > t_inside; }
