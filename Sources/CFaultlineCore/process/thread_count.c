#include "thread_count.h"

#include <dlfcn.h>
#include <stddef.h>

// glibc's count of live threads (GLIBC_PRIVATE, exported by libc.so.6 since
// 2.34 and by libpthread before); NULL when not found.
static int *counter(void) {
    static int *c;
    static int looked;
    if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
        c = (int *)dlsym(RTLD_DEFAULT, "__nptl_nthreads");
        __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
    }
    return c;
}

// Found when the image loads: dlsym takes the loader's lock, which a
// set*id interposer (report_dir_drop.c) must not wait for.
__attribute__((constructor)) static void find_counter(void) { counter(); }

int fl_program_threads(void) {
    int *c = counter();
    return c ? __atomic_load_n(c, __ATOMIC_ACQUIRE) : -1;
}

void fl_thread_uncount(void) {
    int *c = counter();
    if (c) __atomic_fetch_sub(c, 1, __ATOMIC_ACQ_REL);
}

void fl_thread_recount(void) {
    int *c = counter();
    if (!c) return;
    int n = __atomic_load_n(c, __ATOMIC_ACQUIRE);
    while (n > 0 && !__atomic_compare_exchange_n(c, &n, n + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {}
}
