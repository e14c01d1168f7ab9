// Keeps the synchronous fault signals deliverable on every thread.
//
// A hardware fault (SIGSEGV, SIGBUS, SIGILL, SIGFPE) or a trap (SIGTRAP,
// SIGSYS) on a thread that blocks that signal is not queued: the kernel
// resets it to SIG_DFL and kills the process, so the crash handler never
// runs. Worker threads that block "every signal" so process signals reach
// one thread (sigfillset + pthread_sigmask) are common; a crash there would
// leave no report.
#ifndef FL_FAULT_MASK_H
#define FL_FAULT_MASK_H

#include <signal.h>
#include <stdint.h>

/// From now on, pthread_sigmask, sigprocmask and sigaction (its sa_mask)
/// leave SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP and SIGSYS unblocked.
/// Call once the crash handlers are installed. Not async-signal-safe.
void fl_fault_mask_keep_open(void);

/// Undoes fl_fault_mask_keep_open (faultline_uninstall): the program's
/// masks and handlers' sa_mask pass through unchanged again.
void fl_fault_mask_let_close(void);

/// The signals fl_fault_mask_keep_open keeps out of every mask, as the
/// kernel's 64-bit mask (bit sig-1). Async-signal-safe.
uint64_t fl_fault_mask_bits(void);

/// The C library's sigaction, past the agent's interposer (which keeps the
/// sample signal's handler, sample_keep.h). Async-signal-safe.
int fl_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

#endif
