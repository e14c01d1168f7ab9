// Live-block records for leak detection: every live block is linked into
// one of SHIM_LIVE_STRIPES doubly-linked lists through the link in front of
// its header (shim_block.h; the list is chosen by
// the allocating thread, so a thread mostly takes its own lock). Its
// allocation stack's live bytes in the stack depot are counted as blocks
// come and go only in growth mode, whose snapshots are periodic; otherwise
// shim_live_tally counts them when asked (an OOM breadcrumb, a warning):
// the count was a cold depot line written at every malloc and free.
#ifndef SHIM_LIVE_H
#define SHIM_LIVE_H

#include "shim_block.h"

#include <stdint.h>

/// Number of lists (and spinlocks).
#define SHIM_LIVE_STRIPES 64

/// 1 while live blocks are recorded (FAULTLINE_LEAK_TRACKING, default on).
extern int shim_live_on;

/// Links a new block (header filled, alloc_tid set), counts it and stores
/// its state tag `magic` under the stripe's lock, so a walk that holds
/// every lock (the exit check) never meets a member whose tag is not yet
/// written and takes it for a damaged header.
void shim_live_insert(shim_block *b, uint32_t magic);
/// Marks a new block as kept off the lists: the shim's own machinery
/// allocated it (libunwind's thread-local storage on a thread's first
/// unwind), so it is not the program's and no leak check may report it.
void shim_live_leave_out(shim_block *b);
/// Stores the state tag `magic` of a block that is being freed, under the
/// stripe's lock as shim_live_insert does, then unlinks and uncounts it. Returns 0, or the
/// block whose links were found overwritten (an underflow in front of its
/// header): `b` itself (the list is then mended around it without
/// following them) or a neighbour whose link no longer pointed back (it is
/// rewritten with the right value).
const shim_block *shim_live_remove(shim_block *b, uint32_t magic);

/// Makes the depot's live bytes and blocks of every stack exact: in growth
/// mode they already are; otherwise they are counted afresh from the lists
/// under every stripe lock. Not from a signal handler that interrupted
/// the shim (shim_live_locked_here).
void shim_live_tally(void);

/// Takes every stripe lock (leak scan, fork). No list changes until unlock.
void shim_live_lock_all(void);
/// Releases them.
void shim_live_unlock_all(void);
/// 1 when the calling thread holds a list's lock (a signal handler that
/// interrupted the shim is running on it).
int shim_live_locked_here(void);
/// Live blocks recorded (exact only under shim_live_lock_all).
uint64_t shim_live_count(void);
/// Calls `fn(header, ctx)` for every live block; requires shim_live_lock_all.
/// Every link is checked before it is followed (a list whose links were
/// overwritten is walked up to the damage only).
void shim_live_each(void (*fn)(const shim_block *b, void *ctx), void *ctx);
/// The same, with `inherited` 1 for blocks allocated before this process
/// was forked (the leak scan leaves them to the parent).
void shim_live_each_origin(void (*fn)(const shim_block *b, int inherited, void *ctx), void *ctx);
/// Calls `fn(header, ctx)` for every block on the lists whose header is
/// not whole (its state tag or checksum overwritten by an underflow; none
/// of its fields is to be trusted); requires shim_live_lock_all.
void shim_live_each_damaged(void (*fn)(const shim_block *b, void *ctx), void *ctx);
/// fork, in the child (one thread, lists unlocked): every live block so far
/// was the parent's allocation and becomes inherited. O(stripes).
void shim_live_after_fork_child(void);

#endif
