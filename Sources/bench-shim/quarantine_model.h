// An idealised quarantine, for measuring how far the malloc shim is from
// the cheapest implementation of the same idea on the same workload.
//
// It does what the shim's "quarantine + scribble" setup does to memory and
// nothing else: a 32-byte header holding the size, new blocks filled with
// 0xAA and freed blocks scribbled with 0x55 (each up to 4096 bytes), a FIFO
// quarantine bounded by bytes (the shim's budget),
// the pattern checked as a block leaves, and `realloc` always moving. What
// it leaves out is what the shim needs to be usable: no stacks, no locks (one
// thread only), no block states (a double or invalid free is not caught), no
// reports (a changed pattern aborts), and memory released to its 16-byte
// size classes is never given back or shared between classes.
#ifndef BENCH_SHIM_QUARANTINE_MODEL_H
#define BENCH_SHIM_QUARANTINE_MODEL_H

#include <stddef.h>

/// Sets the model up with a quarantine of `budget` bytes; 0 on success,
/// else -1 after one line on stderr.
int model_init(size_t budget);
/// The model's malloc, calloc, realloc and free (single thread only).
void *model_malloc(size_t n);
void *model_calloc(size_t count, size_t n);
void *model_realloc(void *p, size_t n);
void model_free(void *p);

#endif
