// A lock-free store of the opening and creating stacks the resource
// detectors keep (fds, thread_leaks): every distinct stack once, in an arena
// mapped at install (reserved, not committed), found through an
// open-addressing hash table. Inserts take no lock, so an interposer may
// record from a signal handler and a fork needs nothing. A full arena or
// table gives id 0 ("no stack") and counts the drop.
#ifndef FL_STACK_STORE_H
#define FL_STACK_STORE_H

#include <stdint.h>

/// Most frames kept per stack.
#define FL_STACK_STORE_FRAMES 48

/// Maps the arena and the table. Returns 0 or -1. Not async-signal-safe.
int fl_stack_store_init(void);
/// Stores `pcs` (or finds the equal stack); returns its id, 0 when none
/// could be stored. Async-signal-safe.
uint32_t fl_stack_store_put(const uintptr_t *pcs, int n);
/// The frames of stack `id` (their count; 0 for id 0 or an unknown id).
/// Async-signal-safe.
int fl_stack_store_get(uint32_t id, const uintptr_t **pcs);
/// Stacks dropped because the store was full.
uint64_t fl_stack_store_dropped(void);

/// Captures the calling thread's stack into `pcs` (at most `max`) from the
/// frame that returns to `caller` outwards: the interposer's own frames and
/// the agent's are left out. Returns the count. Async-signal-safe.
int fl_stack_capture_from(const void *caller, uintptr_t *pcs, int max);

#endif
