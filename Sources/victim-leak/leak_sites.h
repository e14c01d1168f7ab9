// Allocation sites several victim-leak commands share: scenarios name
// these functions in their allocation stacks, so each is a real frame.
#ifndef VICTIM_LEAK_SITES_H
#define VICTIM_LEAK_SITES_H

#include <stddef.h>

/// The global cache fill_cache fills: 100 blocks of 64 bytes, reachable.
extern void *g_cache[100];

/// Fills g_cache (100 still-reachable blocks from fill_cache).
void fill_cache(void);

/// Loses one 77-byte block, allocated in leak_77.
void leak_77(void);

/// malloc(n) from one call site, reached through several callers.
void *leak_site(size_t n);

/// Loses `n` 24-byte blocks, each from its own allocation stack: 13
/// levels of descend, through one of two call sites at each level.
void lose_from_many_stacks(int n);

#endif
