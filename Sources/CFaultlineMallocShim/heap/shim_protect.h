// Large freed blocks page-protected in the quarantine: the whole pages
// inside a block are given back (MADV_DONTNEED) and made PROT_NONE while it
// is held, so a use after free there faults at the instruction, read or
// write, instead of reading old data (and the memory is not held twice);
// the partial pages at both ends are scribbled and checked as before.
#ifndef SHIM_PROTECT_H
#define SHIM_PROTECT_H

#include "shim_block.h"

#include <stddef.h>
#include <stdint.h>

/// Blocks this big or bigger are protected; smaller ones are scribbled (up
/// to FAULTLINE_SCRIBBLE_LIMIT). Three system calls per block (two at the
/// free, one at the release) and the page faults of reusing given-back
/// memory: for 4 KiB blocks that tripled the synthetic benchmark's system
/// time; from 64 KiB on it is a fraction of what the block's memory costs.
#define SHIM_PROTECT_FROM (64u << 10)

/// The bit of `free_tid` that says the block's pages are protected.
#define SHIM_FREE_PROTECTED (1u << 31)

/// At most this many blocks are protected at once: each protected range
/// splits a mapping, and a process has vm.max_map_count (65530) of them.
#define SHIM_PROTECT_MAX 8192

/// The whole pages inside `b`'s user bytes: [*lo, *hi), empty when none.
void shim_protect_range(const shim_block *b, uintptr_t *lo, uintptr_t *hi);
/// Protects a freed block's whole pages when it has any and the limit
/// allows; sets SHIM_FREE_PROTECTED (free_tid set first). Returns 1 when protected.
int shim_protect_freed(shim_block *b);
/// Makes a protected block's pages accessible again (before it goes back
/// to the allocator). Its protected pages read as zeros. Returns 0 when it
/// could not (the block must then never be given back: it is kept).
int shim_protect_release(shim_block *b);

#endif
