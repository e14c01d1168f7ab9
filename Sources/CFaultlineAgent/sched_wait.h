// What the scheduler does with a thread. Under load a thread that is ready
// to run can wait tens or hundreds of milliseconds for a CPU: stack
// requests tell that wait apart from a thread that cannot answer.
#ifndef FL_SCHED_WAIT_H
#define FL_SCHED_WAIT_H

#include <stdint.h>
#include <sys/types.h>

/// 1 when `tid` is runnable or running (state R in its /proc stat file),
/// 0 when it is in any other state or cannot be read. Allocation-free and
/// async-signal-safe.
int fl_sched_runnable(pid_t tid);

#endif
