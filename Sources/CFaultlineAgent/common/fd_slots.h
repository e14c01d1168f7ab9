// A small lock-free set of fds: an array of atomic ints holding fd + 1 per
// slot, 0 when free. The fd guard's guarded and hidden sets and the
// libunwind pipe's made and pending sets are all this. Async-signal-safe.
#ifndef FL_FD_SLOTS_H
#define FL_FD_SLOTS_H

#include <stdatomic.h>

/// Puts `fd` into a free slot of `slots` (`n` of them): 1, or 0 when full.
static inline int fl_fd_slots_put(atomic_int *slots, int n, int fd) {
    for (int i = 0; i < n; i++) {
        int none = 0;
        if (atomic_compare_exchange_strong(&slots[i], &none, fd + 1)) return 1;
    }
    return 0;
}

/// 1 when `fd` (not negative) is in `slots`.
static inline int fl_fd_slots_has(atomic_int *slots, int n, int fd) {
    for (int i = 0; i < n; i++)
        if (atomic_load(&slots[i]) == fd + 1) return 1;
    return 0;
}

/// Clears every slot holding `fd`: 1 when there was one.
static inline int fl_fd_slots_take(atomic_int *slots, int n, int fd) {
    int had = 0;
    for (int i = 0; i < n; i++) {
        int expected = fd + 1;
        if (atomic_compare_exchange_strong(&slots[i], &expected, 0)) had = 1;
    }
    return had;
}

#endif
