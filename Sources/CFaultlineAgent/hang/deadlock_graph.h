// Following wait-for edges from one thread: A waits on a lock held by B, B
// waits on a lock held by C, … until a thread that is not waiting on an
// owned lock, or until a thread repeats and the cycle closes.
#ifndef FL_DEADLOCK_GRAPH_H
#define FL_DEADLOCK_GRAPH_H

#include "deadlock_futex.h"
#include "hang_probe.h"

/// Longest chain followed.
#define FL_CHAIN_MAX 64

/// One thread in a chain and what it waits for.
typedef struct fl_chain_link {
    fl_thread_probe probe;
    fl_wait_edge edge;
} fl_chain_link;

/// A wait-for chain from its first thread.
typedef struct fl_wait_chain {
    int count;
    /// Index of the link the cycle starts at (the last link's owner is that
    /// link's thread), or -1 when the chain ends without a cycle.
    int cycle_start;
    fl_chain_link links[FL_CHAIN_MAX];
} fl_wait_chain;

/// Follows edges from the thread observed in `first`. Allocation-free.
void fl_wait_chain_follow(const fl_thread_probe *first, fl_wait_chain *out);

/// 1 when both chains close the same cycle (same threads waiting on the
/// same locks) and none of its edges has a timeout.
int fl_wait_cycle_confirmed(const fl_wait_chain *a, const fl_wait_chain *b);

#endif
