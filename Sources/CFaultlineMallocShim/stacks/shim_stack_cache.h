// Allocation and free stacks as stack depot ids, with a per-thread cache
// of recent libunwind stacks, a per-thread memo of recent frame-pointer
// walks, or both (the auto unwinder: frame pointers, and libunwind where
// the walk cannot leave frame 0).
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
// uncacheable.
//
// A frame-pointer walk costs less than finding its result in the depot
// (a hash over the frames, a bucket, an entry and a compare: about 60 %
// of each stack's time). The memo (256 walks per thread, 64 sets of 4,
// keyed the same way) keeps the words each walk read: every frame
// record's saved frame pointer and return address, and what stopped it.
// When each of those words still holds what it held, a walk would take
// the same steps and find the same frames, so the remembered depot id is
// taken; a walk from there to any other stack reads a word that differs.
#ifndef SHIM_STACK_CACHE_H
#define SHIM_STACK_CACHE_H

#include <stdint.h>

/// The depot id of the stack of the allocator call whose frame is `fp`
/// (0 when none could be stored). The caller holds the guard.
uint32_t shim_stack_record(uintptr_t fp);
/// The calling thread is exiting: its cache or memo is unmapped and not
/// made again.
void shim_stack_cache_thread_exit(void);
/// Stacks served from the libunwind caches (`libunwind` 1) or the memos
/// (0), and stacks unwound (or walked and put in the depot), over all
/// threads (an exiting thread adds its counts; live threads add them at
/// exit).
void shim_stack_cache_counts(int libunwind, uint64_t *hits, uint64_t *misses);

#endif
