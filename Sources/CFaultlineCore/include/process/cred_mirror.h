// Keeping Faultline's own threads (faultline-err, -wdog, -mem, -leaks) in
// step with the program's privilege changes.
//
// glibc applies setuid, setresgid, setgroups and the rest of the set*id
// family to every thread of a process (it signals each, SIGSETXID) and
// aborts when their results differ (__nptl_setxid_error). Beside the ids,
// what decides a result is per thread: the capability sets and the
// securebits (KEEPCAPS is one of them). A program that sets KEEPCAPS and
// capset on its own thread before a uid change (setpriv, container
// entrypoints) keeps CAP_SETGID there while our threads lose it, and its
// next setresgid aborts. So before each set*id call, and after each capset,
// PR_SET_KEEPCAPS or PR_SET_SECUREBITS, every own thread is asked — by a
// directed signal its image already handles — to take the calling thread's
// capabilities and securebits itself (capset and prctl change only the
// calling thread). Ids and groups need nothing: glibc's broadcast changes
// them on our threads too.
//
// Each image (the agent, the malloc shim) links its own copy of this and of
// the interposers (cred_interpose.c), which chain through RTLD_NEXT: each
// copy looks after its own image's threads.
#ifndef FL_CRED_MIRROR_H
#define FL_CRED_MIRROR_H

#include <signal.h>

/// Sets the signal this image's own threads answer on (`signo`: a directed
/// signal whose handler calls fl_cred_mirror_answer first), the variable
/// that chooses it (`option`, named when the program has taken it), and
/// `prepare`, called before they are signalled: it returns 0 when that
/// handler is in place (a program may have replaced it), installing it if
/// need be. Not async-signal-safe (install time).
void fl_cred_mirror_init(int signo, const char *option, int (*prepare)(void));

/// Called by the creator just before it starts an own thread: a set*id call
/// waits (bounded) until the thread has registered, so a thread still
/// starting is not left out. Pair with fl_cred_mirror_thread_begin on the
/// new thread, or with fl_cred_mirror_thread_start_failed.
void fl_cred_mirror_thread_starting(void);

/// The own thread announced with fl_cred_mirror_thread_starting was not
/// created.
void fl_cred_mirror_thread_start_failed(void);

/// On a new own thread, once its signal mask is set: registers it and
/// unblocks the image's signal on it (sent only by tgkill-style directed
/// calls, so process signals still go to the program's threads).
void fl_cred_mirror_thread_begin(void);

/// On an own thread about to end: leaves the registry (waiting, bounded, for
/// a request under way).
void fl_cred_mirror_thread_end(void);

/// First thing in the image's handler for its signal. Returns 1 when this
/// delivery is a mirror request, after carrying it out if it is for the
/// calling thread (the handler must then return: the delivery is not its
/// own business); 0 otherwise. Async-signal-safe and allocation-free.
int fl_cred_mirror_answer(const siginfo_t *info);

/// The signal set by fl_cred_mirror_init (0 before).
int fl_cred_mirror_signal(void);

/// Interrupts own thread `tid`'s blocking call (poll returns EINTR) with
/// the image's signal, marked as a request but asking nothing: its handler
/// finds no open request for it and returns. 0, or -1 with errno (ENOTSUP
/// when the program has put a handler of its own on the signal: it would
/// run on our thread). Not async-signal-safe (the shim's `prepare` may
/// install its handler).
int fl_cred_mirror_nudge(pid_t tid);

/// What an interposer holds across the call it wraps.
typedef struct {
    int locked;        ///< this call holds the image's mirror lock
    int cancel_state;  ///< the caller's, while cancellation is off (cancel_off.h)
} fl_cred_turn;

/// Before a set*id call (or initgroups): takes the image's mirror lock and
/// gives every own thread the calling thread's capabilities and securebits.
/// Cancellation is off until the after_ call (cancel_off.h).
void fl_cred_mirror_before_setxid(fl_cred_turn *turn);

/// After the set*id call, which returned `rc`: releases the lock. On
/// success glibc's broadcast changed our threads as it changed the caller
/// (they were alike), so what they now have is noted, not sent again.
/// Returns `rc`, with errno as the call left it.
int fl_cred_mirror_after_setxid(fl_cred_turn *turn, int rc);

/// Before capset or prctl(PR_SET_KEEPCAPS / PR_SET_SECUREBITS) on the
/// calling thread: takes the image's mirror lock, with cancellation off
/// until fl_cred_mirror_after_change.
void fl_cred_mirror_before_change(fl_cred_turn *turn);

/// After that call, which returned `rc`: on success every own thread takes
/// the new state at once (a capability the program dropped must not stay on
/// our threads until its next set*id call); then releases the lock. Returns
/// `rc`, with errno as the call left it.
int fl_cred_mirror_after_change(fl_cred_turn *turn, int rc);

#endif
