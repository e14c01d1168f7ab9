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

#endif
