// What the scheduler does with a thread. Under load a thread that is ready
// to run can wait tens or hundreds of milliseconds for a CPU: stack
// requests tell that wait apart from a thread that cannot answer, and the
// hang watchdog tells it apart from a stopped process (whose time is
// nobody's hang).
#ifndef FL_SCHED_WAIT_H
#define FL_SCHED_WAIT_H

#include <stdint.h>
#include <sys/types.h>

/// The state letter of thread `tid` in its /proc stat file (`R`, `S`, `D`,
/// `T`, `Z`…), 0 when it cannot be read (a thread gone). Allocation-free
/// and async-signal-safe.
char fl_thread_state(pid_t tid);

/// 1 when `tid` is runnable or running (state R in its /proc stat file),
/// 0 when it is in any other state or cannot be read. Allocation-free and
/// async-signal-safe.
int fl_sched_runnable(pid_t tid);

/// Voluntary context switches of the calling thread so far: each time it
/// blocked (a sleep, a wait) or was stopped (SIGSTOP, a debugger). A thread
/// that waits for a CPU is not switched out voluntarily. Async-signal-safe.
uint64_t fl_own_voluntary_switches(void);

#endif
