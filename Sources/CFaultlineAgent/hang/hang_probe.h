// What a thread is doing right now, read from /proc without stopping it:
// /proc/self/task/<tid>/syscall (the syscall it is blocked in and its
// arguments, or "running"), .../status (state, context switches) and its
// CPU-time clock. Used by the hang watchdog and the deadlock graph.
#ifndef FL_HANG_PROBE_H
#define FL_HANG_PROBE_H

#include <stdint.h>
#include <sys/types.h>

/// One observation of one thread.
typedef struct fl_thread_probe {
    pid_t tid;
    char state;             ///< R S D T t Z X from status, 0 when unknown
    int running;            ///< the syscall file said "running"
    long nr;                ///< syscall number; -1 blocked outside a syscall (page fault)
    uint64_t args[6];       ///< syscall arguments
    uint64_t sp, pc;        ///< user stack pointer and pc at the syscall
    uint64_t vcsw, nvcsw;   ///< voluntary / involuntary context switches
    uint64_t sigblk;        ///< blocked signals (bit n-1 for signal n)
    uint64_t cpu_ns;        ///< CPU time the thread has used
    uint64_t time_ns;       ///< CLOCK_MONOTONIC when probed
} fl_thread_probe;

/// What a probed thread is doing, for hang decisions.
typedef enum fl_wait_kind {
    FL_WAIT_RUNNING,       ///< on the CPU (or runnable)
    FL_WAIT_IDLE,          ///< waiting for events: poll, epoll, select, a read on a pipe/socket/tty, accept, sigsuspend, wait4…
    FL_WAIT_FUTEX,         ///< blocked in futex (a lock, condition, semaphore or join)
    FL_WAIT_SLEEP,         ///< nanosleep / clock_nanosleep
    FL_WAIT_BLOCKED,       ///< any other blocking syscall (disk, flock, connect…)
    FL_WAIT_STOPPED,       ///< stopped (SIGSTOP, ptrace)
    FL_WAIT_GONE,          ///< exited or a zombie
} fl_wait_kind;

/// Observes `tid` (a thread of this process). Returns 0, -1 when the
/// thread is gone, -2 when its status was read but not its syscall file
/// (the process is not dumpable). Allocation-free.
int fl_probe_thread(pid_t tid, fl_thread_probe *p);

/// Makes `tid` the watched thread: its syscall file is opened and kept
/// just before the process may become non-dumpable (a set*id call,
/// prctl(PR_SET_DUMPABLE, 0): undumpable_hook.h), so it can still be read
/// then; until then it is read by path and no fd is held. One thread at a
/// time. Not async-signal-safe.
void fl_probe_keep(pid_t tid);
/// Closes the kept file (in a forked child, which has no watchdog).
void fl_probe_forget(void);

/// Classifies an observation.
fl_wait_kind fl_probe_classify(const fl_thread_probe *p);

/// 1 when `p` is blocked in write or writev on a pipe or FIFO: it waits
/// for the process that reads the other end. Allocation-free.
int fl_probe_writes_to_pipe(const fl_thread_probe *p);

/// Name of a wait kind: "running", "idle", "futex", "sleep", "blocked", "stopped", "gone".
const char *fl_wait_kind_name(fl_wait_kind k);

/// Name of a syscall the detector knows ("futex", "clock_nanosleep", …), or NULL.
const char *fl_syscall_name(long nr);

/// 1 when syscall `nr` is an event loop's wait (poll, select, epoll, pause,
/// sigsuspend, accept, recv…): inferred mode watches a main thread for
/// hangs once it has been seen in one. wait4 and pipe reads are idle but
/// do not count (shells and filters block in them too).
int fl_syscall_waits_for_events(long nr);

/// 1 when a signal handler (SA_RESTART) delivered during syscall `nr` leaves
/// the call's outcome unchanged, so sampling the thread by directed signal
/// does not disturb it. Sleeps, poll/select/epoll and unknown calls return 0.
int fl_syscall_tolerates_signal(long nr);

/// True when both observations show the thread blocked in the same call (same
/// syscall, arguments and stack pointer) and it did not run in between more
/// than `signals_sent` times (each directed signal wakes it once).
int fl_probe_unchanged(const fl_thread_probe *before, const fl_thread_probe *after, int signals_sent);

/// TracerPid of this process (non-zero under a debugger or strace), or 0.
int fl_probe_tracer_pid(void);

/// 1 when `tid` is a live thread of this process.
int fl_thread_alive(pid_t tid);

#endif
