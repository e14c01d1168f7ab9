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

/// From now on, pthread_sigmask, sigprocmask and sigaction (its sa_mask)
/// leave SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP and SIGSYS unblocked.
/// Call once the crash handlers are installed. Not async-signal-safe.
void fl_fault_mask_keep_open(void);

#endif
