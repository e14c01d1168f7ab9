// Making the process single-threaded for one system call.
//
// The kernel refuses some calls while a process has more than one thread:
// unshare(CLONE_NEWUSER), which implies CLONE_THREAD, and CLONE_THREAD,
// CLONE_SIGHAND or CLONE_VM themselves (check_unshare_flags: EINVAL), and
// setns into a user namespace (a thread group of one and an fs_struct no
// other thread shares), a mount namespace (the fs_struct: EINVAL) or a time
// namespace (EUSERS). Faultline's own threads (faultline-err, -wdog, -mem,
// the shim's -leaks) made those calls fail in programs that are otherwise
// single-threaded: `unshare -r`, `nsenter -m`.
//
// So each image registers its threads that can be stopped here, and the
// interposers (solo_interpose.c) wrap such a call: when every other thread
// of the process is Faultline's, each of this image's threads leaves its
// loop at a safe point and ends, the call is made, and the calling thread
// starts them again, so they live in its new namespaces and credentials.
// What a thread holds (the stderr ring, the hang episode, breadcrumbs,
// growth snapshots) is in static storage and stays; each says what else a
// restart renews. A program with threads of its own is left alone: the call
// fails for it as it would without Faultline.
//
// Each image (the agent, the malloc shim) links its own copy; they chain
// through RTLD_NEXT like every interposer, the first stopping its threads
// before passing the call to the next, and each tells the others' threads
// from the program's through faultline_solo_threads_running.
#ifndef FL_SOLO_CALL_H
#define FL_SOLO_CALL_H

#include <signal.h>
#include <stdatomic.h>
#include <pthread.h>
#include <sys/types.h>

typedef struct fl_solo_thread fl_solo_thread;

/// One of this image's own threads that a solo call may stop and start
/// again. Defined statically beside the thread's code; the fields after
/// `start` are fl_solo_*'s.
struct fl_solo_thread {
    const char *name;                 ///< the thread's name, for messages
    /// Makes the thread leave its wait (it then finds the stop request);
    /// called again every millisecond until the thread has ended, so it
    /// may rely on a signal that can arrive just before the wait.
    void (*wake)(fl_solo_thread *);
    /// Starts the thread again, on the calling thread (which called
    /// fl_solo_thread_starting inside). Returns 0 or -1.
    int (*start)(void);
    _Atomic int state;   ///< SOLO_* in solo_call.c
    _Atomic pid_t tid;   ///< set by the creator (fl_solo_thread_created) and by the thread as it begins
    _Atomic pid_t pid;   ///< the process it was started in (a forked child has none of it)
};

/// The creator, just before it creates the thread (at install, after a
/// fork, on a restart): registers `t` (once) and marks it running in this
/// process. Not async-signal-safe.
void fl_solo_thread_starting(fl_solo_thread *t);

/// The creator: the thread announced by fl_solo_thread_starting was not
/// created.
void fl_solo_thread_start_failed(fl_solo_thread *t);

/// First thing on the new thread: names it (`name`, for people and for
/// tools reading /proc) and records its id.
void fl_solo_thread_begin(fl_solo_thread *t);

/// The creator, right after pthread_create returned 0 and before the
/// thread may be detached: records the new thread's id, so that reports
/// and the leak scan know it as Faultline's (fl_solo_thread_is_faultlines)
/// before it has run at all. The creator does not wait for the thread: on
/// a virtual machine, waking one whose CPU is idle costs about 2 ms
/// (docs/malloc-shim.md, "Costs of a short process").
void fl_solo_thread_created(fl_solo_thread *t, pthread_t thread);

/// 1 when the thread `tid` (the process's own id, as gettid gives it) is one
/// of Faultline's in this process, of any Faultline image: this one, those
/// after it in the lookup order (the shim's leak helper, from the agent)
/// and the first (the agent's threads, from the shim), once
/// fl_solo_link_images has run. Reports, the leak scan and the agent's
/// alternate-stack installer tell Faultline's threads from the program's by
/// this, not by their names, which a thread sets itself some time after it
/// was created (before that it may not block signals yet either).
/// Async-signal-safe.
int fl_solo_thread_is_faultlines(pid_t tid);

/// Looks up the other Faultline images' registries for
/// fl_solo_thread_is_faultlines, once (dlsym: not async-signal-safe). Called
/// at install and by fl_solo_thread_starting.
void fl_solo_link_images(void);

/// The name Faultline's thread `tid` gives itself (its record's, such as
/// "faultline-wdog"), of any Faultline image as fl_solo_thread_is_faultlines
/// says; NULL for any other thread. Reports name Faultline's threads by
/// this, not by /proc's comm: until a new thread has run its first line it
/// carries its creator's name (a report listed "faultline-mem" as "sh"),
/// and a program may rename any of its tasks. Async-signal-safe.
const char *fl_solo_thread_name(pid_t tid);

/// At the thread's safe points (between reads, ticks, samples, waits): 1
/// when a solo call asks it to end; it must then return from its start
/// routine without waiting for anything (fl_cred_mirror_thread_end and
/// fl_thread_recount first, as at any end).
int fl_solo_thread_stop_asked(fl_solo_thread *t);

/// Asks one of this image's threads to end for good (faultline_uninstall)
/// and waits for it as a solo call does, at most 2 s. Returns 1 once it
/// has ended (or was not running in this process), 0 when it did not end
/// in time: it then still ends at its next safe point. Not
/// async-signal-safe; not to be called while a solo call is under way.
int fl_solo_thread_stop(fl_solo_thread *t);

/// A thread ending on its own (process exit, a closed pipe): it is no
/// longer one to stop or restart.
void fl_solo_thread_end(fl_solo_thread *t);

/// 1 when the thread has left its loop for a solo call and has not been
/// started again, so nothing of it runs (stderr capture drains the pipe
/// itself then). Async-signal-safe.
int fl_solo_thread_stopped(fl_solo_thread *t);

/// A ready `wake` for a thread waiting in poll or another call a signal
/// cuts short: sends it the image's signal, asking nothing
/// (fl_cred_mirror_nudge).
void fl_solo_wake_by_signal(fl_solo_thread *t);

/// What a solo call holds between fl_solo_enter and fl_solo_leave.
typedef struct {
    unsigned stopped;   ///< this image's threads asked to stop (bit per registry slot)
    unsigned gone;      ///< those of them that have ended
    int retries;        ///< calls made again (fl_solo_retry)
    int masked;         ///< `old_mask` holds the caller's signal mask
    int cancel_state;   ///< the caller's, while cancellation is off (cancel_off.h)
    sigset_t old_mask;
} fl_solo_turn;

/// Before a call the kernel refuses in a multi-threaded process (`call`
/// names it in messages): when every thread but the caller is Faultline's,
/// stops this image's, with the caller's signals blocked (all but the
/// fault signals and the image's own) until fl_solo_leave, so no handler
/// of the program runs while they are away. Waits at most 2 s; a thread
/// that does not end by then is left running, with one line on stderr, and
/// the call then fails as before. Keeps errno. Cancellation is off until
/// fl_solo_leave (cancel_off.h).
void fl_solo_enter(fl_solo_turn *turn, const char *call);

/// After the call returned `rc`: 1 when it should be made again after a
/// short pause — it failed with EINVAL or EUSERS although this image's
/// threads were stopped, and the kernel may still have counted one that
/// had just ended (its signal handlers are let go a moment after its id).
/// At most twice. Keeps errno.
int fl_solo_retry(fl_solo_turn *turn, int rc);

/// After the call (`call` names it in messages): starts again every
/// thread fl_solo_enter stopped, from the calling thread, and gives it back
/// its signal mask. Keeps errno.
void fl_solo_leave(fl_solo_turn *turn, const char *call);

#endif
