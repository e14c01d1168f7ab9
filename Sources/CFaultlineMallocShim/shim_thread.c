#include "shim_thread.h"

#include <unistd.h>
#include "sigsafe.h"

#include <pthread.h>

__thread shim_thread shim_self __attribute__((tls_model("initial-exec")));

uint32_t shim_tid_slow(void) {
    shim_self.tid = (uint32_t)fl_gettid();
    return shim_self.tid;
}

void shim_thread_after_fork(void) { shim_self.tid = 0; }

int shim_thread_bounds(void) {
    if (__builtin_expect(shim_self.bounds_state == 2, 1)) return 1;
    if (shim_self.bounds_state != 0) return 0;
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
