// libunwind's memory-validation pipe, held only while an unwind needs it.
// libunwind 1.6 opens a pipe at its first use (tdep_init_mem_validate) and
// keeps it for the process's life: before reading a frame it cannot trust
// (no DWARF for it: a guessed frame, a pc of 0 after a call through NULL)
// it writes a byte of the memory into the pipe, which fails with EFAULT
// where the page is unreadable. Those two fds were the last a process under
// `faultline exec` held (issue 37: a child's listing after a close-all, or
// CPython's fd_status scan of 0 .. SC_OPEN_MAX - 1 under a soft fd limit
// equal to the hard one, saw them).
//
// libunwind keeps the pair in a static `int[2]` and passes that very
// array to pipe2, which the agent interposes (fd_guard.c): so the agent
// learns where the array is, and can close the pipe and put -1 into both
// slots. libunwind's next validation then reads fd -1, gets EBADF, and
// opens a new pair (`open_pipe`: it closes only numbers other than -1), so
// it never reads or writes a number that is the program's by then.
//
// libunwind's reopen is not thread-safe: two walks that both find the
// slots at -1 both make a pair, and the second closes the first's read end
// (`if (pipe[0] != -1) close(pipe[0])`) while the first is writing into its
// write end: SIGPIPE, and the program died of it (hang reports sample every
// thread at once). So libunwind's own closes of its pair, made inside a
// walk or called from libunwind's code, are deferred to the end of the
// last walk: no read end goes while a walk may still write. Once the
// program walks with libunwind itself, the pair is no longer let go.
#ifndef FL_UNWIND_PIPE_H
#define FL_UNWIND_PIPE_H

/// Called by the pipe2 interposer with the array it was given: 1 when it is
/// libunwind's (known already, or found now from `caller`'s image; the
/// first call then remembers it), else 0. Async-signal-safe once known.
int fl_unwind_pipe_is(int fds[2], const void *caller);

/// Stores the pair the pipe2 interposer made for libunwind (`made`, hidden
/// already) into libunwind's array `fds`. A pair it replaces is closed at
/// the end of the agent's last walk (in progress, or the next); libunwind's
/// own closes of `made` wait the same way (fl_unwind_pipe_close_deferred).
/// Async-signal-safe.
void fl_unwind_pipe_store(int fds[2], const int made[2]);

/// Called by the close interposer with its return address: 1 when `fd` is
/// one of libunwind's pairs and this thread is inside a walk, or `caller`
/// is libunwind's own code (a reopen in a walk the agent does not count),
/// in which case the close is left to the end of the agent's last walk (and
/// the caller returns 0). A program closing every fd closes it at once.
/// Async-signal-safe.
int fl_unwind_pipe_close_deferred(int fd, const void *caller);

/// Takes libunwind's pipe, if it has one open, out of its array (both slots
/// -1, so that libunwind opens a new one when it next validates memory) and
/// closes it once no walk is in progress (else the last walk to end does).
/// Only fds still hidden (fd_guard.h) are closed: a number the program
/// closed and may have reused is only forgotten. Async-signal-safe.
void fl_unwind_pipe_release(void);

/// Brackets every libunwind walk, the agent's (unwinder.c's hooks) and the
/// malloc shim's (given these at the agent's install): the last walk to end
/// releases the pipe (fl_unwind_pipe_release). Exported for the shim.
/// Async-signal-safe; a walk interrupted by a signal whose handler walks
/// nests.
void faultline_unwind_walk_begin(void);
/// Ends what faultline_unwind_walk_begin started.
void faultline_unwind_walk_end(void);

/// The program is closing or replacing `fd`: when it is one of libunwind's
/// pair, its slot is set to -1 first, so libunwind never uses the number
/// again (it makes a new pair at its next validation). Async-signal-safe.
void fl_unwind_pipe_forget(int fd);

#endif
