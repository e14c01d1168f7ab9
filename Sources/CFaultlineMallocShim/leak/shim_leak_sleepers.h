// Threads a world stop finds asleep in a system call that a signal handler
// ends with EINTR whatever SA_RESTART says (nanosleep, clock_nanosleep,
// pause, select, poll, epoll_wait...): the stop signal would wake them early
// (a watchdog's usleep returned at once and it called exit(1)). Noted before
// the signal is sent; the parked handler then issues the call again.
#pragma once

#include <stdint.h>
#include <ucontext.h>

/// Forgets the sleepers of the last stop.
void shim_sleepers_reset(void);
/// Reads what thread `tid` (/proc's id `proc_tid`) is blocked in and notes
/// it when it is a sleep the stop signal would cut short.
void shim_sleepers_note(uint32_t proc_tid, uint32_t tid);
/// In the stop signal's handler of thread `tid`, after the scan: when the
/// context `uc` is the return of the noted sleep with EINTR, rewinds it to
/// the system call with the arguments that finish the sleep (the remaining
/// time where the kernel wrote it). Async-signal-safe.
void shim_sleepers_restart(ucontext_t *uc, uint32_t tid);

/// The arguments with which sleep `nr` (arguments `a`) goes on after an
/// EINTR, in `out`; 1 when it is one to go on, 0 otherwise.
int shim_sleeper_resume_args(long nr, const uint64_t a[6], uint64_t out[6]);
