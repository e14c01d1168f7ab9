// Per-thread state of the shim: the reentrancy guard, the cached thread id
// and the stack bounds the frame-pointer walk stays inside. Initial-exec TLS
// so touching it never calls __tls_get_addr (which may allocate).
#ifndef SHIM_THREAD_H
#define SHIM_THREAD_H

#include <stdint.h>

struct shim_block;

/// Freed blocks a thread collects before taking the quarantine lock, and
/// the bytes they may add up to.
#define SHIM_THREAD_BATCH 32
#define SHIM_THREAD_BATCH_BYTES (64u << 10)

/// Per-thread state.
typedef struct shim_thread {
    int depth;            ///< >0 while inside the shim (nested calls skip stacks and reports)
    uint32_t tid;         ///< cached gettid(), 0 until first use
    int bounds_state;     ///< 0 unknown, 1 computing, 2 known, 3 unavailable
    int in_getattr;       ///< >0 inside pthread_getattr_np (shim_thread.c): bounds are not asked for then
    int in_dl_iterate;    ///< >0 inside dl_iterate_phdr (shim_stack.c): no libunwind stacks then
    int stackless;        ///< >0 while the agent installs (faultline_shim_stackless): blocks get no stack
    uintptr_t stack_lo;   ///< lowest address of this thread's stack
    uintptr_t stack_hi;   ///< one past the highest
    uintptr_t stack_data_hi;  ///< end of what lies above it: the main thread's argv and environment (else stack_hi)
    int batch_off;        ///< 1 once the thread is exiting: frees go straight in
    int exit_watched;     ///< 1 once registered for the thread-exit flush
    void *stack_cache;    ///< this thread's libunwind stack cache (shim_stack_cache.c), MAP_FAILED once gone
    int pending_count;    ///< blocks in `pending`
    uint64_t pending_bytes;  ///< their cost
    struct shim_block *pending[SHIM_THREAD_BATCH];  ///< freed, scribbled, not yet in the ring
    uintptr_t leak_caller_sp;  ///< a leak check running on a stack of its own: where the caller's stack ends (shim_leak_report.c)
    uintptr_t caller_fp;  ///< inside a libc function that allocates for its caller (shim_libc_callers.c): the wrapper's frame, where stacks start
    uintptr_t caller_ret;  ///< the return address that frame holds while the wrapper runs
    uint32_t guard_countdown;  ///< FAULTLINE_GUARD=sample:N: allocations until the next guarded one (0: not drawn yet)
    uint32_t guard_rng;        ///< its random state (shim_guard.c)
} shim_thread;

extern __thread shim_thread shim_self __attribute__((tls_model("initial-exec")));

uint32_t shim_tid_slow(void);

/// The calling thread's id (cached).
static inline uint32_t shim_tid(void) {
    uint32_t t = shim_self.tid;
    return __builtin_expect(t != 0, 1) ? t : shim_tid_slow();
}
/// Registers the calling thread so its collected frees are flushed when it
/// exits (shim_init.c). Call before collecting the first one.
void shim_init_watch_thread(void);
/// Forgets the cached id (after fork, in the child).
void shim_thread_after_fork(void);
/// shim_thread_bounds when they are not known yet.
int shim_thread_bounds_slow(void);
/// Fills the stack bounds of the calling thread if not known yet; returns
/// 1 when they are known. Calls pthread_getattr_np (which may allocate), so
/// the caller must hold the guard; returns 0, to be asked again later,
/// while the thread is inside a pthread_getattr_np call already. Inline:
/// every recorded stack asks.
static inline int shim_thread_bounds(void) {
    if (__builtin_expect(shim_self.bounds_state == 2, 1)) return 1;
    return shim_thread_bounds_slow();
}

#endif
