// What the fds detector needs from interposers that live elsewhere (close,
// close_range, closefrom, dup2, dup3 and pipe2 in common/fd_guard.c): one
// call each, doing nothing while the detector is off.
#ifndef FL_FD_HOOKS_H
#define FL_FD_HOOKS_H

#include "fd_table.h"

/// `fd` was just opened by `opener`, called from `caller`
/// (__builtin_return_address(0) of the interposer). Keeps errno.
static inline void fl_fds_opened(int fd, fl_fd_opener opener, const void *caller) {
    if (fd >= 0 && fl_fd_table_on()) fl_fd_table_opened(fd, opener, caller);
}
/// Both fds of a pipe or socket pair.
static inline void fl_fds_opened_pair(const int fds[2], fl_fd_opener opener, const void *caller) {
    fl_fds_opened(fds[0], opener, caller);
    fl_fds_opened(fds[1], opener, caller);
}
/// `fd` is about to be closed.
static inline void fl_fds_closing(int fd) {
    if (fl_fd_table_on()) fl_fd_table_closing(fd);
}
/// Every fd in [lo, hi] is about to be closed.
static inline void fl_fds_closing_range(unsigned lo, unsigned hi) {
    if (fl_fd_table_on()) fl_fd_table_closing_range(lo, hi);
}

#endif
