// A program's SIG_DFL on a fault signal, recorded instead of installed
// (docs/agent.md, "A program that recovers from faults").
//
// A runtime that installs its own handler after the agent's, and for a
// fault it does not own puts the default action back and re-raises (node:
// sigaction(SIGSEGV, SIG_DFL) then raise; the classic `signal(sig,
// SIG_DFL); raise(sig);`), took the agent's handler away exactly when a
// report was due: the process died with none. Once the crash handler is
// installed, a program's SIG_DFL on one of its signals, set inside that
// signal's handler, installs the crash handler instead and is recorded; the
// program reads SIG_DFL back, and the agent, which reports the fault, then
// ends the process by the default action, as the kernel would have. A
// SIG_DFL set elsewhere, SIG_IGN and handlers are installed as before, and
// drop the record.
#ifndef FL_FAULT_DEFAULT_H
#define FL_FAULT_DEFAULT_H

#include <signal.h>

/// Called by fl_crash_install with the crash handler's action, before it
/// installs it on `sigs` (`n` of them, at most 8): from then on a SIG_DFL
/// on those signals is recorded. Not async-signal-safe.
void fl_fault_default_init(const int *sigs, int n, const struct sigaction *agent);

/// Stops recording SIG_DFL (fl_crash_uninstall, after the program's
/// handlers are back): sigaction on the crash signals goes straight to
/// the kernel, and forgets the SIG_DFLs recorded.
void fl_fault_default_disable(void);

/// 1 when `sig` is one of the crash handler's signals and it is installed:
/// a SIG_DFL on it is recorded (fl_fault_default_sigaction).
/// Async-signal-safe.
int fl_fault_default_applies(int sig);

/// Sets `sig`'s action for the program through `real` (the C library's
/// sigaction), when fl_fault_default_applies(sig) said 1: a SIG_DFL set
/// while `sig` is blocked on the calling thread (inside a handler of it
/// without SA_NODEFER) installs the crash handler instead and is recorded;
/// anything else is installed and drops the record. `old` gets the program's previous
/// action: SIG_DFL (no flags, empty mask) while one is recorded, else what
/// was installed. A query (`act` NULL) reads the same. Returns what `real`
/// returned. Async-signal-safe (programs call it from their handlers).
int fl_fault_default_sigaction(int (*real)(int, const struct sigaction *, struct sigaction *), int sig,
                               const struct sigaction *act, struct sigaction *old);

/// 1 when the program's action for `sig` is a recorded SIG_DFL (the crash
/// handler is installed in its place). Async-signal-safe.
int fl_fault_default_is_set(int sig);

#endif
