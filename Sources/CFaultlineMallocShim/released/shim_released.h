// Recently released glibc blocks (bigger than the arena's), by address: a
// hash table of 16-byte entries (address, allocation and free stacks), so
// that a second free of a block whose header glibc has overwritten since
// (its bins' links, a consolidated chunk) is still a double_free with both
// stacks, as long as nothing was allocated at that address again.
#ifndef SHIM_RELEASED_H
#define SHIM_RELEASED_H

#include "shim_block.h"

#include <stdint.h>

/// Entries in the table (a power of two); lossy beyond that.
#define SHIM_RELEASED_SLOTS 16384u

/// Remembers block `b`, about to go back to glibc. Lock-free.
void shim_released_note(const shim_block *b);
/// 1 and the stacks when the block at user pointer `p` was released and
/// nothing was allocated there since.
int shim_released_find(const void *p, uint32_t *alloc_stack, uint32_t *free_stack);
/// A block was allocated at `user`: forget it.
void shim_released_forget(const void *user);

#endif
