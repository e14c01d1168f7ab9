// Big blocks whose header is gone once the quarantine released them:
// glibc serves requests of 128 KiB and more (its mmap threshold) from
// mappings of their own and unmaps them on free, header and all; once the
// threshold has risen (glibc's own rule, or the shim's for a block grown
// by realloc: shim_glibc.c), such blocks come from glibc's heap instead,
// whose free-chunk links overwrite the header and whose next blocks reuse
// the memory. A later free of such a pointer finds nothing to read, or
// another block's bytes; this table keeps a copy of the last few headers
// so that free is still reported as a double free, with its allocation
// and free stacks.
#ifndef SHIM_UNMAPPED_H
#define SHIM_UNMAPPED_H

#include "shim_block.h"

/// 1 when glibc will unmap the real allocation `real` on free (an mmapped
/// chunk: bit 1 of the size word in front of it).
static inline int shim_glibc_chunk_is_mapped(const void *real) { return (((const uint64_t *)real)[-1] & 2) != 0; }

/// Heap blocks this big (the request) have their header kept on release:
/// glibc's default mmap threshold; smaller blocks were never mapped.
#define SHIM_UNMAPPED_KEEP_FROM (128u << 10)

/// Keeps a copy of `b`'s header, about to be unmapped or reused (a copy
/// kept earlier for the same address is dropped). Lock-free and
/// allocation-free; the oldest of SHIM_UNMAPPED_KEEP copies is dropped.
void shim_unmapped_note(const shim_block *b);
/// Copies the kept header of the block at user pointer `p` into `out`;
/// returns 1, or 0 when it is not kept.
int shim_unmapped_find(const void *p, shim_block *out);
/// Forgets the block at `user`: glibc has handed out a new block there.
void shim_unmapped_forget(const void *user);

/// Headers kept.
#define SHIM_UNMAPPED_KEEP 64

#endif
