// The signals the crash handler takes: one list for every place that must
// leave them open (a thread that blocks a synchronous fault is killed by
// the kernel without a report) or install on them.
#ifndef FL_CRASH_SIGNALS_H
#define FL_CRASH_SIGNALS_H

#include <signal.h>

/// How many signals fl_crash_signals holds.
#define FL_CRASH_SIGNAL_COUNT 7

/// SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS, in this order.
extern const int fl_crash_signals[FL_CRASH_SIGNAL_COUNT];

/// Removes every crash signal from `set`. Async-signal-safe.
void fl_crash_signals_del(sigset_t *set);

#endif
