// The quarantine: freed blocks, scribbled with 0x55, held in FIFO order in
// a preallocated ring instead of being returned. Before a block goes in,
// the oldest leave, just enough for it to fit under both limits (one bigger
// than the byte limit leaves at once); blocks of 1 to 64 KiB also leave,
// oldest first and out of turn, once they hold more than
// FAULTLINE_QUARANTINE_BIG_BYTES. Each leaving block's pattern is verified
// (a change is a write after free; a long one in its first 256 bytes, its
// last 64 and FAULTLINE_SCRIBBLE_SAMPLE chunks between) before it goes
// back to the underlying allocator.
#ifndef SHIM_QUARANTINE_H
#define SHIM_QUARANTINE_H

#include "shim_block.h"

#include <stddef.h>
#include <stdint.h>

/// Reserves the ring for `max_count` blocks (fewer when `max_bytes` could
/// not fill that many with 64-byte blocks), charged to `max_bytes`.
/// Returns 0; 1 when the ring leaves none of `max_bytes` for blocks
/// (nothing is held); -1 when it cannot be mapped.
int shim_quarantine_init(size_t max_bytes, size_t max_count);
/// Adds a block (already marked quarantined and scribbled); releases the
/// oldest blocks when over a limit. With a quarantine of at least 512
/// blocks each thread first collects SHIM_THREAD_BATCH of them.
void shim_quarantine_put(shim_block *b);
/// Moves the calling thread's collected blocks into the quarantine.
void shim_quarantine_flush_thread(void);
/// The most blocks shim_quarantine_take_changed can return: the ring's
/// slots and a full batch for every thread it may see.
size_t shim_quarantine_capacity(void);
/// At exit: every held block whose pattern changed, in the ring (oldest
/// first, in one pass, nothing moved) and then in other threads' collected
/// batches, into `out` (room for `cap`). Each is marked released, so no
/// thread releases it while it is being reported, and it is never given
/// back. Returns how many.
size_t shim_quarantine_take_changed(shim_block **out, size_t cap);
/// The calling thread may collect frees from now on (its batch is checked
/// at exit); it stops when it exits. Take the quarantine lock.
void shim_quarantine_thread_start(void);
void shim_quarantine_thread_end(void);
/// fork, in the child: forgets the other threads, and leaves the blocks
/// held before the fork unchecked (a change in one is the parent's to
/// report). Flush the forking thread's batch before forking.
void shim_quarantine_after_fork_child(void);

/// For the fault describer: calls `visit` on held blocks, newest first,
/// under a trylock bounded by `timeout_ns`; stops when it returns nonzero.
/// Returns 1 when visited, 0 when the lock was not available.
int shim_quarantine_scan(int (*visit)(shim_block *b, void *ctx), void *ctx, uint64_t timeout_ns);

/// fork: lock before, unlock after (parent and child).
void shim_quarantine_lock(void);
void shim_quarantine_unlock(void);
/// 1 when the calling thread holds the quarantine's lock: it is running a
/// signal handler that interrupted the shim (and, say, called exit).
int shim_quarantine_locked_here(void);

/// What the quarantine holds and has held.
typedef struct shim_quarantine_stats {
    size_t count, bytes;            ///< held now
    size_t peak_count, peak_bytes;  ///< most held at once
    uint64_t released;              ///< blocks that left
    size_t ring_bytes;              ///< the ring's own size
} shim_quarantine_stats;

/// Fills `out`.
void shim_quarantine_usage(shim_quarantine_stats *out);

/// Verifies a freed block's pattern: 0 when intact, else 1 with the offset
/// and length of the changed range (first to last changed byte).
int shim_scribble_changed(const shim_block *b, size_t limit, size_t *offset, size_t *length);

#endif
