// The stack depot: every distinct allocation or free stack stored once, in
// a preallocated (mmap, reserved not committed) arena, found through a hash
// table. Inserts and lookups are lock-free, so a signal handler may read it
// and fork needs no lock. When the arena is full new stacks get id 0
// ("not recorded") and are counted.
#ifndef SHIM_DEPOT_H
#define SHIM_DEPOT_H

#include <stddef.h>
#include <stdint.h>

/// Reserves the arena (`bytes`) and the table. Returns 0 or -1.
int shim_depot_init(size_t bytes);
/// Stores a stack (or finds the equal one); returns its id, 0 when none.
uint32_t shim_depot_put(const uintptr_t *pcs, int n);
/// The frames of stack `id` (count, or 0 for an unknown id). Async-signal-safe.
int shim_depot_get(uint32_t id, const uintptr_t **pcs);
/// Bytes of the arena in use, and stacks dropped because it was full.
size_t shim_depot_used(void);
uint64_t shim_depot_dropped(void);

/// Adds to the live bytes and blocks of stack `id` (0: no stack recorded).
/// Lock-free; called on every allocation and free in growth mode, and for
/// each live block by shim_live_tally otherwise.
void shim_depot_account(uint32_t id, int64_t bytes, int64_t blocks);
/// Sets every stack's live bytes and blocks to 0 (shim_live_tally's start).
void shim_depot_live_clear(void);
/// Live bytes and blocks of stack `id` (0: the allocations without a stack).
void shim_depot_live(uint32_t id, uint64_t *bytes, uint64_t *blocks);
/// The stack stored after `id` (0 starts the walk), or 0 at the end. Never
/// allocates; stacks stored while walking may or may not be seen.
uint32_t shim_depot_next(uint32_t id);
/// The arena's address range (the leak scan does not read it).
void shim_depot_range(uintptr_t *lo, uintptr_t *hi);
/// One past the highest id handed out so far.
uint32_t shim_depot_id_limit(void);

#endif
