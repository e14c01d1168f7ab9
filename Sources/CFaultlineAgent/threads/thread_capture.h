// Capturing another thread's stack by directed signal: the requester sends
// a real-time signal to one thread, marked as the agent's (rt_tgsigqueueinfo); that thread's handler unwinds
// its own interrupted context into a shared scratch buffer and signals done.
// Bounded in time: a thread that does not answer is reported as such.
#ifndef FL_THREAD_CAPTURE_H
#define FL_THREAD_CAPTURE_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#define FL_MAX_FRAMES 256

/// Installs the sampling signal handler. Not async-signal-safe (install time).
/// Returns 0 or -1.
int fl_threads_init(int signo);

/// The sampling signal in use, or 0 before init.
int fl_threads_signal(void);

/// 0 when the sampling signal's handler is still the agent's (a program may
/// have installed its own since), else -1. Not async-signal-safe.
int fl_threads_handler_in_place(void);

/// 1 when `fn` is the agent's sample handler. Async-signal-safe.
int fl_threads_is_sample_handler(void (*fn)(int, siginfo_t *, void *));

/// Unblocks the sample signal and the fatal signals in the calling thread
/// (new threads inherit its mask). Not needed on the fault path.
void fl_threads_unblock_agent_signals(void);

/// Lists the process's threads (from /proc/self/task), at most `max`.
/// Returns the count listed; `*total` (may be NULL) receives how many
/// threads there are, also those past `max`.
int fl_threads_list(pid_t *tids, int max, int *total);

/// Reads a thread's name into `buf`: its comm, or for one of Faultline's
/// threads the name its record gives (fl_solo_thread_name). Returns its
/// length, 0 if unknown.
int fl_thread_name(pid_t tid, char *buf, int cap);

/// 1 when thread `tid` has signal `sig` blocked (SigBlk in its status)
/// other than for an instant inside glibc, which blocks every signal, its
/// own included, in a new thread until it sets the thread's mask, and
/// around clone in pthread_create and posix_spawn: a signal sent then stays
/// pending and is delivered when glibc restores the mask.
int fl_thread_blocks_signal_lastingly(pid_t tid, int sig);

/// `fl_thread_blocks_signal_lastingly` for a SigBlk mask already read
/// (bit n-1 for signal n).
int fl_sigblk_blocks_lastingly(uint64_t sigblk, int sig);

/// Captures thread `tid`'s stack into `pcs`. Returns the frame count, or -1
/// when the thread did not answer within `timeout_ns` (or is gone). A
/// thread still runnable at the timeout (woken by the request, waiting for
/// a CPU on a loaded machine) is waited for up to 1 s from the request.
/// Frame 0 is the instruction the signal interrupted (FL_FRAME0_INTERRUPTED)
/// — except when `tid` is the calling thread, whose stack is
/// `fl_capture_self`'s. Async-signal-safe; callers are serialised internally.
int fl_capture_thread(pid_t tid, uintptr_t *pcs, int max, uint64_t timeout_ns);

/// `fl_capture_thread`, and how: with `want_fp` the thread walks its frame
/// pointers instead of calling libunwind; it does so on its own too when
/// another thread is inside dl_iterate_phdr (libunwind would wait for it).
/// `*by_fp` (may be NULL) is set to 1 when the stack returned was taken by
/// frame pointers, else 0. Async-signal-safe.
int fl_capture_thread_by(pid_t tid, uintptr_t *pcs, int max, uint64_t timeout_ns, int want_fp, int *by_fp);

/// `fl_capture_thread_by`, giving up at `until_ns` (CLOCK_MONOTONIC; 0: no
/// such bound) whatever the thread is doing: its timeout and the wait for a
/// runnable or answering thread both end there. For a list of threads asked
/// in turn under one deadline (`fl_threads_deadline`). Async-signal-safe.
int fl_capture_thread_until(pid_t tid, uintptr_t *pcs, int max, uint64_t timeout_ns, uint64_t until_ns, int want_fp,
                            int *by_fp);

/// The deadline (CLOCK_MONOTONIC) for asking `n` threads in turn, each
/// within `timeout_ns`: what their timeouts add up to, and at least the 1 s
/// one runnable thread may be waited for. So a list whose threads answer or
/// time out is never cut short, while the waits past a timeout come out of
/// what the other threads did not use. Async-signal-safe.
uint64_t fl_threads_deadline(int n, uint64_t timeout_ns);

/// `fl_capture_thread_by` (libunwind unless another thread is inside
/// dl_iterate_phdr) for the hang watchdog's sample at each tick: gives up at
/// `timeout_ns` even when the thread is runnable, so a starved thread does
/// not hold back the ticks (a lost sample only has no stack). `*stopped`
/// is set to 1 when the caller was stopped (SIGSTOP) while it waited for
/// the answer, else 0. Async-signal-safe.
int fl_capture_thread_sample(pid_t tid, uintptr_t *pcs, int max, uint64_t timeout_ns, int *by_fp, int *stopped);

/// Captures the calling thread's own stack (no signal needed). Frame 0 is
/// inside this function, after its call to getcontext(): a return address
/// (FL_FRAME0_RETURN_ADDRESS).
int fl_capture_self(uintptr_t *pcs, int max);

#endif
