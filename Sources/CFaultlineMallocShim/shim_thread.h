// Per-thread state of the shim: the reentrancy guard, the cached thread id
// and the stack bounds the frame-pointer walk stays inside. Initial-exec TLS
// so touching it never calls __tls_get_addr (which may allocate).
#ifndef SHIM_THREAD_H
#define SHIM_THREAD_H

#include <stdint.h>

/// Per-thread state.
typedef struct shim_thread {
    int depth;            ///< >0 while inside the shim (nested calls skip stacks and reports)
    uint32_t tid;         ///< cached gettid(), 0 until first use
    int bounds_state;     ///< 0 unknown, 1 computing, 2 known, 3 unavailable
    uintptr_t stack_lo;   ///< lowest address of this thread's stack
    uintptr_t stack_hi;   ///< one past the highest
} shim_thread;

extern __thread shim_thread shim_self __attribute__((tls_model("initial-exec")));

/// The calling thread's id (cached).
uint32_t shim_tid(void);
/// Forgets the cached id (after fork, in the child).
void shim_thread_after_fork(void);
/// Fills the stack bounds of the calling thread if not known yet; returns
/// 1 when they are known. Calls pthread_getattr_np (which may allocate), so
/// the caller must hold the guard.
int shim_thread_bounds(void);

#endif
