// Keeping a pending thread cancellation from acting inside a report.
//
// A report written on the program's thread (a crash, a heap error) calls
// write, openat, close, poll and clock_nanosleep, which glibc makes
// cancellation points. A thread that another had asked to end with
// pthread_cancel (deferred, the default) and that crashed or freed twice
// before reaching a cancellation point of its own ended there, from inside
// the handler or free: no report, the SIGSEGV or double free swallowed,
// and the program went on without the thread (it dies of SIGSEGV, or glibc
// aborts, without Faultline). So the report runs with cancellation off,
// and the thread's state is put back after it.
#ifndef FL_CANCEL_OFF_H
#define FL_CANCEL_OFF_H

/// Turns cancellation off on the calling thread; returns the state to give
/// fl_cancel_restore. glibc only flips a bit of the thread's descriptor:
/// safe in a signal handler.
int fl_cancel_off(void);

/// Puts back the state fl_cancel_off returned. A cancellation still pending
/// then acts at the thread's next cancellation point, as it would have.
void fl_cancel_restore(int state);

#endif
