#include "interpose_next.h"
#include "shim_thread.h"

#include <unistd.h>
#include "sigsafe.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

__thread shim_thread shim_self __attribute__((tls_model("initial-exec")));

uint32_t shim_tid_slow(void) {
    shim_self.tid = (uint32_t)fl_gettid();
    return shim_self.tid;
}

void shim_thread_after_fork(void) { shim_self.tid = 0; }

typedef int (*getattr_fn)(pthread_t, pthread_attr_t *);

// glibc's pthread_getattr_np holds the target thread's internal lock while
// it allocates (realloc of the affinity mask; fopen of /proc/self/maps for
// the main thread). A thread's first allocation that records a stack asks
// for its own bounds with pthread_getattr_np: when that allocation came
// from the program's own pthread_getattr_np of the same thread (Ruby, JVMs
// and garbage collectors ask for a new thread's stack first thing), the
// lock was taken twice and the thread hung for ever (memory.getattr-first).
// Interposed only to mark the call: bounds are not asked for inside it.
__attribute__((visibility("default"))) int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr) {
    static getattr_fn next;
    FL_NEXT_SLOT(next, "pthread_getattr_np")
    shim_self.in_getattr++;  // first: dlsym may allocate
    if (!next) next = (getattr_fn)dlsym(RTLD_NEXT, "pthread_getattr_np");
    int rc = next ? next(thread, attr) : ENOSYS;
    shim_self.in_getattr--;
    return rc;
}

int shim_thread_bounds_slow(void) {
    if (shim_self.bounds_state == 2) return 1;
    if (shim_self.bounds_state != 0 || shim_self.in_getattr) return 0;
    shim_self.bounds_state = 1;  // pthread_getattr_np may allocate: no recursion
    pthread_attr_t attr;
    void *addr = 0;
    size_t size = 0;
    int ok = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        ok = pthread_attr_getstack(&attr, &addr, &size) == 0 && size > 0;
        pthread_attr_destroy(&attr);
    }
    if (!ok) { shim_self.bounds_state = 3; return 0; }
    shim_self.stack_lo = (uintptr_t)addr;
    shim_self.stack_hi = (uintptr_t)addr + size;
    // Above the main thread's stack the kernel put argv, the environment
    // and the aux vector: at most a quarter of the stack limit.
    shim_self.stack_data_hi = shim_self.stack_hi + (shim_tid() == (uint32_t)getpid() ? size / 4 : 0);
    shim_self.bounds_state = 2;
    return 1;
}
