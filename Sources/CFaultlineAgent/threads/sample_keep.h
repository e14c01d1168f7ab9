// Keeps the agent's sample-signal handler in place when the program puts a
// handler of its own on that signal, and runs the program's handler for
// every delivery that is not one of the agent's stack requests.
//
// Runtimes that manage signals themselves take every signal they can: Go's
// runtime installs its handler on each real-time signal at start (for
// os/signal), SIGRTMIN+8 included, and its handler keeps such a signal for
// Go instead of passing it on. The agent's stack requests then never reached
// the agent's handler: no other thread's stack in a crash report (each
// waited out FAULTLINE_THREAD_TIMEOUT_MS), no stacks in hang reports, and
// Faultline's threads could not follow a set*id call's capabilities.
#ifndef FL_SAMPLE_KEEP_H
#define FL_SAMPLE_KEEP_H

#include <signal.h>

/// 1 when `sig` is the sample signal and the agent's handler is installed
/// on it (fl_threads_init ran). Async-signal-safe.
int fl_is_sample_signal(int sig);

/// Called by the agent's sigaction interposer before the real sigaction.
/// For the sample signal (once fl_threads_init installed its handler) and
/// an `act` that is not the agent's own handler, records `act` as the
/// program's action instead of installing it, stores the program's previous
/// action in `old`, and returns 1. A query (`act` NULL) gets the program's
/// recorded action, or the installed one when the program set none. Returns
/// 0 for every other call, which then goes to the real sigaction.
/// Async-signal-safe.
int fl_sample_keep_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

/// Takes the program's recorded action for a delivery of the sample signal
/// that is not the agent's (called by the sample handler), as the kernel
/// would have, on a program thread (one that a Faultline thread took is
/// queued again to a program thread: sample_reroute.h): its handler runs with the mask the kernel would give it
/// (the interrupted code's, sa_mask, the signal unless SA_NODEFER; never
/// the fault signals), a one-shot action (SA_RESETHAND) reads SIG_DFL from
/// that delivery on, SIG_IGN ignores it, and SIG_DFL, or no action set by
/// the program, ends the process by the signal. Async-signal-safe.
void fl_sample_keep_forward(int sig, siginfo_t *info, void *ucontext);

#endif
