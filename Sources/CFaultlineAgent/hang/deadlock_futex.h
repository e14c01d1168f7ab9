// Decoding a thread's futex wait into a wait-for edge: which lock it waits
// on and which thread holds it. glibc mutexes record their owner's tid in
// `__data.__owner` (offset 8, after `__lock` and `__count`); PI mutexes
// (and Swift's Synchronization.Mutex) keep it in the futex word itself; a
// glibc rwlock held for writing names its writer in `__cur_writer`; a
// pthread_join waits on the joined thread's tid word.
#ifndef FL_DEADLOCK_FUTEX_H
#define FL_DEADLOCK_FUTEX_H

#include "hang_probe.h"

#include <stdint.h>
#include <sys/types.h>

/// What a futex wait is waiting for.
typedef enum fl_edge_kind {
    FL_EDGE_NONE,       ///< not a futex wait
    FL_EDGE_MUTEX,      ///< a glibc pthread mutex (owner from __owner)
    FL_EDGE_PI_MUTEX,   ///< a priority-inheritance lock (owner in the futex word)
    FL_EDGE_JOIN,       ///< pthread_join: waits for the owner thread to exit
    FL_EDGE_RWLOCK,     ///< a glibc pthread rwlock held for writing (owner from __cur_writer)
    FL_EDGE_FUTEX,      ///< a condition variable, semaphore, read-held rwlock or other futex: no owner
} fl_edge_kind;

/// One wait-for edge.
typedef struct fl_wait_edge {
    fl_edge_kind kind;
    uintptr_t addr;     ///< futex word (the mutex's or rwlock's address for glibc ones)
    pid_t owner;        ///< thread that holds it / is joined, 0 when unknown
    int owner_alive;    ///< the owner is a live thread of this process
    int timed;          ///< the wait has a timeout (it may end by itself)
    int mutex_type;     ///< glibc mutex kind (0 normal, 1 recursive, 2 errorcheck, 3 adaptive), -1 unknown
} fl_wait_edge;

/// Decodes `p` (a probe of a thread blocked in futex). Reads the lock from
/// this process's memory with process_vm_readv (through the calling
/// thread's id, which has memory even after the main thread has ended), so
/// a stale address cannot fault. Returns the edge kind (FL_EDGE_NONE when `p` is not a futex wait).
fl_edge_kind fl_futex_edge(const fl_thread_probe *p, fl_wait_edge *e);

/// "mutex", "pi_mutex", "join", "rwlock", "futex" or "none".
const char *fl_edge_kind_name(fl_edge_kind k);

/// "normal", "recursive", "errorcheck", "adaptive" or NULL.
const char *fl_mutex_type_name(int type);

#endif
