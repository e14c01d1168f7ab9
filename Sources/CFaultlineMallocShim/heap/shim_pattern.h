// Verifying the byte pattern of a freed block (0x55 scribble) as it
// leaves the quarantine or at exit: the part of the check that grows with
// the block.
//
// It compares 64 bytes at a time against the pattern held in registers
// (one stream, not memcmp's two: the block and a 4 KiB pattern buffer),
// and looks for the changed byte only in a 64-byte chunk that differs.
//
// Tried and dropped (issue 29): scribbling with non-temporal stores from
// 1 KiB, so a freed block would not be dragged through the cache. On this
// host (32 MiB of L3) the 16 MB quarantine stays in the cache with
// ordinary stores and the check at release hits it there; streamed, every
// check read memory: the uniform workload took 4.7-6.5 s of CPU against
// 4.8-5.1 s, and with a 64 MB quarantine 5.3-6.8 s against 4.7-4.9 s.
#ifndef SHIM_PATTERN_H
#define SHIM_PATTERN_H

#include <stddef.h>

/// The offset of the first of the `n` bytes at `p` that is not `byte`, or
/// `n` when all are. Allocation-free and async-signal-safe.
size_t shim_pattern_mismatch(const void *p, unsigned char byte, size_t n);

#endif
