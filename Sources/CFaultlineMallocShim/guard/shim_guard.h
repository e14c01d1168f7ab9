// Guard pages (FAULTLINE_GUARD): blocks placed against a PROT_NONE page,
// Electric Fence's and GWP-ASan's way, so an overflow (or, with
// FAULTLINE_GUARD_SIDE=left, an underflow past the header) and a use after
// free fault at the instruction, read or write.
//
//   all       every block gets pages of its own in a reserved range, never
//             reused: [data pages][guard] (right) or [guard][data pages]
//             (left); a freed block's pages are given back and PROT_NONE.
//   sample:N  one allocation in N (randomised) goes to a fixed pool of
//             FAULTLINE_GUARD_SLOTS slots of 4 data pages and a guard page,
//             reused oldest-freed first; a freed slot keeps its pages,
//             PROT_NONE until its next turn; every other allocation takes
//             the plain path (no fill, scribble, quarantine or stacks).
//
// Blocks keep the usual header in front of them (so the live paths are the
// shim's own); a copy of it per block, in a table indexed by page, tells a
// freed block's state and stacks without touching its pages.
#ifndef SHIM_GUARD_H
#define SHIM_GUARD_H

#include "shim_block.h"
#include "shim_find.h"

#include <stddef.h>
#include <stdint.h>

enum { SHIM_GUARD_OFF = 0, SHIM_GUARD_ALL = 1, SHIM_GUARD_SAMPLE = 2 };

/// Start and end of the guarded range (0 when guard pages are off).
extern uintptr_t shim_guard_lo, shim_guard_hi;

/// 1 when `p` lies in the guarded range.
static inline int shim_guard_owns(const void *p) { return (uintptr_t)p - shim_guard_lo < shim_guard_hi - shim_guard_lo; }

/// Reserves the range and its table (constructor). Returns 0, or -1 with
/// guard pages off.
int shim_guard_init(int mode, size_t slots, int left);
/// 1 when this allocation is to be guarded (mode all, or the sample's turn).
int shim_guard_wanted(void);
/// A guarded block of `size` aligned to `align`, its header filled as the
/// shim's alloc_block fills one; NULL when it cannot be (too big for a
/// slot, no slot free, range used up, mprotect refused): the caller then
/// takes the plain path.
void *shim_guard_alloc(size_t size, size_t align, int zero, unsigned kind, uint32_t stack, size_t fill_from, int linked);
/// The state of the guarded block at `p` (SHIM_LIVE, …), 0 when `p` is no
/// guarded block's start.
uint32_t shim_guard_state(const void *p);
/// Frees live guarded block `b` (checked by the caller, free stack and
/// thread set): its pages become PROT_NONE (and, in mode all, are given
/// back; a sample slot keeps them for its next block).
void shim_guard_free(shim_block *b);
/// The header copy of the guarded block at `p` (any state): 1 when known.
int shim_guard_copy(const void *p, shim_block *out);
/// For the fault describer: the guarded block whose pages or guard page
/// hold `addr`. Fills `out` (state, offset from the block's start, which
/// is past its end for an overflow and wraps below 0 for an underflow).
int shim_guard_find(uintptr_t addr, shim_found *out);
/// One past the last byte a live guarded block's red zone may use (the
/// end of its data pages).
uintptr_t shim_guard_data_end(const shim_block *b);
/// 1 when the pattern in front of live guarded block `b`'s link (or
/// header), in its data pages, is whole (checked with its red zone).
int shim_guard_front_intact(const shim_block *b);
/// Reports a changed pattern in front of `b` (state `state`, found at
/// `detected`) as a heap_buffer_underflow (region `front_slack`) and
/// writes it back; 1 when it had changed.
int shim_guard_front_report(const shim_block *b, uint32_t state, const char *detected);
/// 1 when `addr` lies in the PROT_NONE bytes in front of every guarded
/// block (the moat at the range's start, never handed out).
int shim_guard_moat(uintptr_t addr);

#endif
