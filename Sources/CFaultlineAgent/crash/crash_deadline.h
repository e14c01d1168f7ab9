// A deadline for the crash handler: a crash must never become a hang. The
// handler can block on a lock another thread holds and never releases — the
// dynamic linker's (libunwind reads the image list through dl_iterate_phdr),
// libunwind's own, or whatever a crash callback takes. A POSIX timer aimed at
// the reporting thread delivers SIGSYS (a fault signal, so the crash
// handler's mask lets it through) when a stage of the handler has run too
// long; the handler then writes what it can without the stuck work and ends
// the process by the original signal.
#ifndef FL_CRASH_DEADLINE_H
#define FL_CRASH_DEADLINE_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

/// The signal the deadline delivers.
#define FL_DEADLINE_SIGNAL SIGSYS

/// Arms (or re-arms) the deadline to fire at thread `tid` in `ms`
/// milliseconds; ms == 0 does nothing. Raw system calls only:
/// async-signal-safe. Returns 0, or -1 when no timer could be made.
int fl_deadline_arm(pid_t tid, uint64_t ms);

/// Cancels the deadline. A signal already queued by it is still delivered;
/// fl_deadline_is_ours() then tells the handler to ignore it.
void fl_deadline_disarm(void);

/// 1 when `info` is the deadline's signal (SI_TIMER with our cookie).
int fl_deadline_is_ours(const siginfo_t *info);

/// 1 while a deadline is armed.
int fl_deadline_armed(void);

#endif
