// Answering FAULTLINE_LEAK_SIGNAL without a thread of the shim's own.
//
// A process that never starts a second thread (most short ones: /bin/true,
// a shell's commands) has no leak helper (shim_leak_growth.c starts it at
// the first pthread_create): the signal's handler runs the check itself,
// on the thread the signal interrupted, unless that thread is inside the
// shim (its reentrancy depth, one of the shim's locks, a check under way);
// then a one-shot
// kernel timer raises the signal again a moment later, when the thread has
// most likely left. A program that waits after the signal (sleep, poll,
// read) gets its report at once, as with the helper.
#ifndef SHIM_LEAK_SIGNAL_H
#define SHIM_LEAK_SIGNAL_H

#include <signal.h>

/// Installs the handler of `signo` (the leak signal). `post`, when it
/// returns 1, has handed the request to the leak helper; when it returns
/// 0 (no helper in this process) the handler answers as above. 0 or -1.
int shim_leak_signal_install(int signo, int (*post)(void));

/// 1 when the calling thread is inside the shim where a leak check could
/// wait for a lock the thread holds itself or see a half-made change (a
/// signal handler asks about the code it interrupted). Async-signal-safe.
int shim_leak_busy_here(void);

/// In a forked child: the parent's retry timer is not the child's.
void shim_leak_signal_after_fork_child(void);

#endif
