// Allocation and free stacks as stack depot ids, with a per-thread cache
// of recent libunwind stacks.
//
// libunwind costs about 180 ns a stack even with its own trace cache; a
// program allocates from few call sites at few stack depths, so most stacks
// repeat. A cached stack is keyed by the program's return address and
// stack pointer at the allocator call, and remembers where on the stack
// each of its return addresses was found. It is reused only when every one
// of them is still there: the call chain is then the same one (each frame
// is found at a fixed distance from the one below it, given its return
// address), so reuse is exact, not a guess. Frames whose return address
// was not where a plain call puts it (signal frames) make a stack
// uncacheable. Frame-pointer stacks are cheap and are not cached.
#ifndef SHIM_STACK_CACHE_H
#define SHIM_STACK_CACHE_H

#include <stdint.h>

/// The depot id of the stack of the allocator call whose frame is `fp`
/// (0 when none could be stored). The caller holds the guard.
uint32_t shim_stack_record(uintptr_t fp);
/// The calling thread is exiting: its cache is unmapped and not made again.
void shim_stack_cache_thread_exit(void);
/// Stacks served from the caches and stacks unwound, over all threads
/// (an exiting thread adds its counts; live threads add them at exit).
void shim_stack_cache_counts(uint64_t *hits, uint64_t *misses);

#endif
