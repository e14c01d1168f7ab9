// The other libc entry points that set a signal's action: signal (and its
// aliases bsd_signal and ssignal), sysv_signal (and __sysv_signal, what
// `signal` names in a strict X/Open build) and sigset. glibc's call its
// internal sigaction, which passes the agent's sigaction interposer, so on
// the sample signal they replaced the agent's handler: a program that took
// SIGRTMIN+8 with signal() left every other thread of its crash report
// without a stack. For the sample signal each is done here, through
// sample_keep.h, with the flags and mask glibc gives it; every other signal
// goes to libc's definition. Async-signal-safe, as signal() is.
#include "interpose_next.h"
#include "fault_mask.h"
#include "sample_keep.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>

typedef __sighandler_t (*signal_fn)(int, __sighandler_t);

FL_NEXT_VAR(signal)
FL_NEXT_VAR(bsd_signal)
FL_NEXT_VAR(ssignal)
FL_NEXT_VAR(sysv_signal)
FL_NEXT_VAR(__sysv_signal)
FL_NEXT_VAR(sigset)
#define real(name) ((signal_fn)(next_##name ? next_##name : dlsym(RTLD_NEXT, #name)))

// The handler an action names, as signal() returns it.
static __sighandler_t handler_of(const struct sigaction *act) {
    return (act->sa_flags & SA_SIGINFO) ? (__sighandler_t)(void *)act->sa_sigaction : act->sa_handler;
}

// Records `handler` as the program's action for the sample signal, with
// `flags` and, when `mask_self`, the signal itself in sa_mask; returns the
// previous handler.
static __sighandler_t keep(int sig, __sighandler_t handler, int flags, int mask_self) {
    if (handler == SIG_ERR) { errno = EINVAL; return SIG_ERR; }
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    memset(&old, 0, sizeof old);
    act.sa_handler = handler;
    act.sa_flags = flags;
    sigemptyset(&act.sa_mask);
    if (mask_self) sigaddset(&act.sa_mask, sig);
    fl_sample_keep_sigaction(sig, &act, &old);
    return handler_of(&old);
}

/// BSD semantics, glibc's `signal`: SA_RESTART, the signal blocked while
/// its handler runs. (siginterrupt's record, which glibc consults, is
/// glibc's own; a program that called it for this signal gets SA_RESTART
/// anyway.)
FL_EXPORT __sighandler_t signal(int sig, __sighandler_t handler) {
    if (!fl_is_sample_signal(sig)) return real(signal)(sig, handler);
    return keep(sig, handler, SA_RESTART, 1);
}

/// The same as `signal` in glibc.
FL_EXPORT __sighandler_t bsd_signal(int sig, __sighandler_t handler) {
    if (!fl_is_sample_signal(sig)) return real(bsd_signal)(sig, handler);
    return keep(sig, handler, SA_RESTART, 1);
}

/// The same as `signal` in glibc.
FL_EXPORT __sighandler_t ssignal(int sig, __sighandler_t handler) {
    if (!fl_is_sample_signal(sig)) return real(ssignal)(sig, handler);
    return keep(sig, handler, SA_RESTART, 1);
}

/// System V semantics: one-shot, not blocked while it runs, no restart.
FL_EXPORT __sighandler_t sysv_signal(int sig, __sighandler_t handler) {
    if (!fl_is_sample_signal(sig)) return real(sysv_signal)(sig, handler);
    return keep(sig, handler, SA_RESETHAND | SA_NODEFER, 0);
}

/// What `signal` names in a strict X/Open build (signal.h redirects it).
FL_EXPORT __sighandler_t __sysv_signal(int sig, __sighandler_t handler) {
    if (!fl_is_sample_signal(sig)) return real(__sysv_signal)(sig, handler);
    return keep(sig, handler, SA_RESETHAND | SA_NODEFER, 0);
}

/// System V's sigset: SIG_HOLD blocks the signal and leaves its action;
/// any other disposition is set (no flags) and the signal unblocked. Returns
/// SIG_HOLD when the signal was blocked before, else the previous handler.
FL_EXPORT __sighandler_t sigset(int sig, __sighandler_t disp) {
    if (!fl_is_sample_signal(sig)) return real(sigset)(sig, disp);
    sigset_t set, before;
    sigemptyset(&set);
    sigaddset(&set, sig);
    __sighandler_t prev;
    if (disp == SIG_HOLD) {
        struct sigaction cur;
        memset(&cur, 0, sizeof cur);
        if (!fl_sample_keep_sigaction(sig, 0, &cur)) fl_real_sigaction(sig, 0, &cur);
        prev = handler_of(&cur);
        if (sigprocmask(SIG_BLOCK, &set, &before) != 0) return SIG_ERR;
    } else {
        prev = keep(sig, disp, 0, 0);
        if (prev == SIG_ERR || sigprocmask(SIG_UNBLOCK, &set, &before) != 0) return SIG_ERR;
    }
    return sigismember(&before, sig) ? SIG_HOLD : prev;
}
