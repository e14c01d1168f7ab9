// Finding the block an arbitrary address points into, without faulting:
// scans back from the address for the nearest header whose address-bound
// magic is valid, reading through shim_safe_read. Async-signal-safe.
#ifndef SHIM_FIND_H
#define SHIM_FIND_H

#include "shim_block.h"

#include <stddef.h>
#include <stdint.h>

/// A block found for an address.
typedef struct shim_found {
    shim_block *header;  ///< where the header is
    shim_block copy;     ///< its contents when read
    uint32_t state;      ///< SHIM_LIVE or SHIM_QUARANTINED (SHIM_RELEASED: see shim_find_block)
    uint64_t offset;     ///< address minus the block's first byte
} shim_found;

/// Default distance the scan goes back (FAULTLINE_FIND_WINDOW is not an
/// option: large blocks are also found through the quarantine list).
#define SHIM_FIND_WINDOW (1u << 20)

/// Looks for a live or quarantined block containing `addr`, scanning at
/// most `window` bytes back. Returns 1 and fills `out`, else 0; when the
/// nearest header is of a block already released, 0 with `out` filled and
/// `out->state` SHIM_RELEASED (its size and thread ids may be overwritten
/// by the allocator under the shim; its stacks are not).
int shim_find_block(uintptr_t addr, size_t window, shim_found *out);

/// The live or quarantined block whose header is the nearest one in front
/// of `addr` (within `window`), whether or not `addr` lies inside it (an
/// address past its end: in its red zone, or beyond). 1 and `out` filled.
int shim_find_nearest(uintptr_t addr, size_t window, shim_found *out);

#endif
