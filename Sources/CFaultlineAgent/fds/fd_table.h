// The fds detector's table: for each descriptor the program opened since
// install (or since the fork that made this process), the call that opened
// it, its opening stack (stack_store.h) and the file's identity (device and
// inode) when it was opened. Indexed by fd number, mapped once at install,
// written without locks by the thread that owns the number at that moment
// (a number is removed before the close that frees it, recorded after the
// open that returns it), so interposers may run in signal handlers and a
// fork needs no lock. docs/resources.md describes the detector.
#ifndef FL_FD_TABLE_H
#define FL_FD_TABLE_H

#include <stdint.h>

/// Fds at or above this number are not followed.
#define FL_FDS_MAX 65536

/// The calls that make descriptors, as the report names them.
typedef enum fl_fd_opener {
    FL_FD_OPEN = 1, FL_FD_OPENAT, FL_FD_CREAT, FL_FD_SOCKET, FL_FD_SOCKETPAIR, FL_FD_ACCEPT, FL_FD_PIPE,
    FL_FD_DUP, FL_FD_EVENTFD, FL_FD_TIMERFD, FL_FD_SIGNALFD, FL_FD_EPOLL, FL_FD_INOTIFY, FL_FD_MEMFD,
    FL_FD_FOPEN, FL_FD_OPENDIR, FL_FD_POPEN, FL_FD_MKSTEMP, FL_FD_TMPFILE, FL_FD_FCNTL, FL_FD_RECVMSG,
    FL_FD_SYSCALL, FL_FD_RECVMMSG,
} fl_fd_opener;

/// One followed descriptor.
typedef struct fl_fd_record {
    _Atomic uint32_t stack;   ///< opening stack id + 1 is never 0 while in use: see `opener`
    _Atomic uint32_t opener;  ///< fl_fd_opener; 0: not followed
    uint64_t dev, ino;        ///< identity when opened (0, 0: unknown)
    uint64_t seq;             ///< order of opening
} fl_fd_record;

/// Maps the table and the stack store. Returns 0 or -1. Install time.
int fl_fd_table_init(void);
/// Stops following opens and closes (uninstall).
void fl_fd_table_stop(void);
/// 1 once the table follows opens (installed, `fds` selected).
int fl_fd_table_on(void);
/// Records `fd`, opened by `opener` called from `caller`. Async-signal-safe.
void fl_fd_table_opened(int fd, fl_fd_opener opener, const void *caller);
/// Forgets `fd` (call before the close that frees its number).
/// Async-signal-safe.
void fl_fd_table_closing(int fd);
/// Forgets every fd in [lo, hi].
void fl_fd_table_closing_range(unsigned lo, unsigned hi);
/// The record of `fd`, or NULL when it is not followed.
const fl_fd_record *fl_fd_table_get(int fd);
/// One past the highest fd ever recorded.
int fl_fd_table_limit(void);
/// Descriptors followed now.
int fl_fd_table_count(void);
/// Forgets everything (the child of a fork: what its parent opened is
/// inherited, not opened by it).
void fl_fd_table_forget_all(void);
/// The opener's name ("open", "socket", "fopen"…).
const char *fl_fd_opener_name(uint32_t opener);

#endif
