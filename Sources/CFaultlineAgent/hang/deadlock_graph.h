// Following wait-for edges from one thread: A waits on a lock held by B, B
// waits on a lock held by C, … until a thread that is not waiting on an
// owned lock, or until a thread repeats and the cycle closes. The walk asks
// a wait source for each thread's edge, so it reads no /proc itself: the
// watchdog walks live threads (deadlock_live.c), the unit tests a table.
#ifndef FL_DEADLOCK_GRAPH_H
#define FL_DEADLOCK_GRAPH_H

#include "deadlock_futex.h"
#include "hang_probe.h"

#include <sys/types.h>

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

/// Where a walk learns what threads wait for.
typedef struct fl_wait_source {
    /// Fills `e` with what the thread observed in `p` waits for.
    void (*edge)(void *ctx, const fl_thread_probe *p, fl_wait_edge *e);
    /// Observes thread `tid` into `p`; 0 on success, nonzero when it is gone.
    int (*probe)(void *ctx, pid_t tid, fl_thread_probe *p);
    void *ctx;
} fl_wait_source;

/// Follows edges from the thread observed in `first`, asking `src`; stops
/// at a thread with no live owner to wait for, at a repeated thread (the
/// cycle), at an owner that cannot be observed, or after FL_CHAIN_MAX
/// links. Allocation-free.
void fl_wait_chain_walk(const fl_thread_probe *first, const fl_wait_source *src, fl_wait_chain *out);

/// fl_wait_chain_walk over this process's live threads (futex words read
/// by fl_futex_edge, threads observed by fl_probe_thread). Allocation-free.
void fl_wait_chain_follow(const fl_thread_probe *first, fl_wait_chain *out);

/// 1 when both chains close the same cycle (same threads waiting on the
/// same locks) and none of its edges has a timeout.
int fl_wait_cycle_confirmed(const fl_wait_chain *a, const fl_wait_chain *b);

#endif
