// Groups of a leak scan's blocks, as valgrind's loss records: one per
// (class, allocation stack); an indirectly lost group per allocation stack
// with recursion collapsed and per definitely lost group that holds it. A definitely
// lost group counts what hangs from it; suppressing it suppresses that too.
// Built after the scan, with the threads running again (shim_leak_report.c).
#ifndef SHIM_LEAK_GROUPS_H
#define SHIM_LEAK_GROUPS_H

#include "shim_leak.h"

#include <stdint.h>

/// Blocks and bytes.
typedef struct leak_totals { uint64_t blocks, bytes; } leak_totals;

/// One group of blocks.
typedef struct leak_group {
    uint64_t key;         ///< the allocation stack (indirectly lost: with recursion collapsed, hashed)
    uint64_t holder_key;  ///< an indirectly lost group's: the key of the definitely lost group it hangs from
    int64_t holder;       ///< that group's index in the table, or -1 (none, or not reported: inherited)
    uint32_t stack;       ///< the shortest allocation stack among the group's blocks (depot id)
    uint16_t depth;       ///< its frames
    uint8_t cls;          ///< LEAK_*
    int16_t suppressed;   ///< suppression index, -1 none
    uint64_t count, bytes;
    leak_totals held;     ///< a definitely lost group's: the indirectly lost blocks hanging from it
    uint64_t position;    ///< index in the order written (shim_leak_groups_order)
} leak_group;

/// The groups of one scan, in mmap'd memory.
typedef struct leak_groups {
    leak_group *g;
    uint64_t n;           ///< groups in `g` (then those not suppressed, after shim_leak_groups_order)
    uint64_t slots;       ///< room mapped
    leak_totals cls[4];   ///< per class, every block but the inherited ones
    leak_totals inherited;
} leak_groups;

/// Groups the scan's blocks (still-reachable ones only with
/// `with_reachable`; inherited ones left out and counted unless
/// `with_inherited`). -1 when no memory could be mapped.
int shim_leak_groups_build(const leak_scan *s, int with_reachable, int with_inherited, leak_groups *out);

/// Matches each lost group against the leak suppressions, and suppresses
/// an indirectly lost group whose holder is suppressed with it (under the
/// holder's pattern). Counts per pattern (256 entries), and the totals.
void shim_leak_groups_suppress(leak_groups *gs, uint64_t *pattern_blocks, uint64_t *pattern_bytes,
                               leak_totals *suppressed, leak_totals *shown_lost);

/// Drops suppressed groups and orders the rest: definitely lost first,
/// most bytes with what hangs from them first; then indirectly lost, then
/// still reachable, most bytes first. Sets each group's `position`, and
/// `holder` to the holder's position.
void shim_leak_groups_order(leak_groups *gs);

/// Releases the table.
void shim_leak_groups_free(leak_groups *gs);

/// The collapsed key of `pcs`, whose frames lie in `functions` (one
/// identity per frame): a run of frames in one function counts as that
/// function, once (as the crash report prints such a run), and a sequence
/// of up to 4 such tokens repeated one after another counts once
/// (recursion through a few functions); any other frame counts by its
/// address. Stacks that differ only by recursion depth or path get one key.
uint64_t shim_leak_collapsed_key(const uintptr_t *pcs, const uint64_t *functions, int n);

#endif
