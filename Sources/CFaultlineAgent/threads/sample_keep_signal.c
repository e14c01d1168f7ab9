// The other libc entry points that set a signal's action: signal (and its
// aliases bsd_signal and ssignal), sysv_signal (and __sysv_signal, what
// `signal` names in a strict X/Open build), sigset, sigignore, and
// siginterrupt, which changes one. glibc's call its
// internal sigaction, which passes the agent's sigaction interposer, so on
// the sample signal they replaced the agent's handler: a program that took
// SIGRTMIN+8 with signal() left every other thread of its crash report
// without a stack. For the sample signal each is done here, through
// sample_keep.h, with the flags and mask glibc gives it; every other signal
// goes to libc's definition. Async-signal-safe, as signal() is.
#include "interpose_next.h"
#include "fault_default.h"
#include "fault_mask.h"
#include "sample_keep.h"

#include <errno.h>
#include <stdatomic.h>
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
FL_NEXT_VAR(siginterrupt)
FL_NEXT_VAR(sigignore)
#define real(name) ((signal_fn)(next_##name ? next_##name : dlsym(RTLD_NEXT, #name)))

// The handler an action names, as signal() returns it.
static __sighandler_t handler_of(const struct sigaction *act) {
    return (act->sa_flags & SA_SIGINFO) ? (__sighandler_t)(void *)act->sa_sigaction : act->sa_handler;
}

// The action glibc's call builds: `handler` with `flags` and, when
// `mask_self`, the signal itself in sa_mask.
static struct sigaction action_of(int sig, __sighandler_t handler, int flags, int mask_self) {
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_handler = handler;
    act.sa_flags = flags;
    sigemptyset(&act.sa_mask);
    if (mask_self) sigaddset(&act.sa_mask, sig);
    return act;
}

// Records `handler` as the program's action for the sample signal (see
// action_of); returns the previous handler.
static __sighandler_t keep(int sig, __sighandler_t handler, int flags, int mask_self) {
    if (handler == SIG_ERR) { errno = EINVAL; return SIG_ERR; }
    struct sigaction act = action_of(sig, handler, flags, mask_self), old;
    memset(&old, 0, sizeof old);
    fl_sample_keep_sigaction(sig, &act, &old);
    return handler_of(&old);
}

// Sets `handler` on a crash signal through the agent's sigaction
// interposer (see action_of), as glibc's call does: its own call of
// sigaction passes the interposer by, so a SIG_DFL set this way took the
// crash handler away (fault_default.h). Returns the previous handler.
static __sighandler_t set_fault(int sig, __sighandler_t handler, int flags, int mask_self) {
    if (handler == SIG_ERR) { errno = EINVAL; return SIG_ERR; }
    struct sigaction act = action_of(sig, handler, flags, mask_self), old;
    memset(&old, 0, sizeof old);
    if (sigaction(sig, &act, &old) != 0) return SIG_ERR;
    return handler_of(&old);
}

/// siginterrupt(sig, 1) was called last for the sample signal: glibc's
/// `signal` then sets it without SA_RESTART (its `_sigintr` set, which it
/// keeps to itself, so this one stands for it on the sample signal).
static atomic_int g_interrupts;

// The flags glibc's `signal` gives the sample signal.
static int bsd_flags(void) { return atomic_load(&g_interrupts) ? 0 : SA_RESTART; }

/// BSD semantics, glibc's `signal`: SA_RESTART unless siginterrupt said
/// otherwise, the signal blocked while its handler runs.
FL_EXPORT __sighandler_t signal(int sig, __sighandler_t handler) {
    if (fl_fault_default_applies(sig)) return set_fault(sig, handler, SA_RESTART, 1);
    if (!fl_is_sample_signal(sig)) return real(signal)(sig, handler);
    return keep(sig, handler, bsd_flags(), 1);
}

/// The same as `signal` in glibc.
FL_EXPORT __sighandler_t bsd_signal(int sig, __sighandler_t handler) {
    if (fl_fault_default_applies(sig)) return set_fault(sig, handler, SA_RESTART, 1);
    if (!fl_is_sample_signal(sig)) return real(bsd_signal)(sig, handler);
    return keep(sig, handler, bsd_flags(), 1);
}

/// The same as `signal` in glibc.
FL_EXPORT __sighandler_t ssignal(int sig, __sighandler_t handler) {
    if (fl_fault_default_applies(sig)) return set_fault(sig, handler, SA_RESTART, 1);
    if (!fl_is_sample_signal(sig)) return real(ssignal)(sig, handler);
    return keep(sig, handler, bsd_flags(), 1);
}

/// System V semantics: one-shot, not blocked while it runs, no restart.
FL_EXPORT __sighandler_t sysv_signal(int sig, __sighandler_t handler) {
    if (fl_fault_default_applies(sig)) return set_fault(sig, handler, SA_RESETHAND | SA_NODEFER, 0);
    if (!fl_is_sample_signal(sig)) return real(sysv_signal)(sig, handler);
    return keep(sig, handler, SA_RESETHAND | SA_NODEFER, 0);
}

/// What `signal` names in a strict X/Open build (signal.h redirects it).
FL_EXPORT __sighandler_t __sysv_signal(int sig, __sighandler_t handler) {
    if (fl_fault_default_applies(sig)) return set_fault(sig, handler, SA_RESETHAND | SA_NODEFER, 0);
    if (!fl_is_sample_signal(sig)) return real(__sysv_signal)(sig, handler);
    return keep(sig, handler, SA_RESETHAND | SA_NODEFER, 0);
}

/// System V's sigset: SIG_HOLD blocks the signal and leaves its action;
/// any other disposition is set (no flags) and the signal unblocked. Returns
/// SIG_HOLD when the signal was blocked before, else the previous handler.
FL_EXPORT __sighandler_t sigset(int sig, __sighandler_t disp) {
    if (fl_fault_default_applies(sig) && disp != SIG_HOLD) {
        sigset_t one, before;
        sigemptyset(&one);
        sigaddset(&one, sig);
        __sighandler_t prev = set_fault(sig, disp, 0, 0);
        if (prev == SIG_ERR || sigprocmask(SIG_UNBLOCK, &one, &before) != 0) return SIG_ERR;
        return sigismember(&before, sig) ? SIG_HOLD : prev;
    }
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

/// System V's sigignore: SIG_IGN, no flags. glibc's put it over the agent's
/// handler, whose stack requests were then ignored.
FL_EXPORT int sigignore(int sig) {
    if (fl_fault_default_applies(sig)) return set_fault(sig, SIG_IGN, 0, 0) == SIG_ERR ? -1 : 0;
    if (!fl_is_sample_signal(sig)) {
        int (*next)(int) = (int (*)(int))(next_sigignore ? next_sigignore : dlsym(RTLD_NEXT, "sigignore"));
        return next(sig);
    }
    keep(sig, SIG_IGN, 0, 0);
    return 0;
}

/// glibc's siginterrupt reads the installed action and sets it again with
/// SA_RESTART changed: on the sample signal that was the agent's handler,
/// so the agent's own stack requests then broke the program's blocking
/// calls with EINTR, while the program read back its action unchanged.
/// Here the program's recorded action (SIG_DFL when it set none) gets the
/// change, and `signal` takes it into account, as glibc's does.
FL_EXPORT int siginterrupt(int sig, int interrupt) {
    if (!fl_is_sample_signal(sig)) {
        int (*next)(int, int) = (int (*)(int, int))(next_siginterrupt ? next_siginterrupt : dlsym(RTLD_NEXT, "siginterrupt"));
        return next(sig, interrupt);
    }
    struct sigaction act;
    memset(&act, 0, sizeof act);  // SIG_DFL, the program's action when it set none
    sigemptyset(&act.sa_mask);
    fl_sample_keep_sigaction(sig, 0, &act);
    atomic_store(&g_interrupts, interrupt != 0);
    if (interrupt) act.sa_flags &= ~SA_RESTART;
    else act.sa_flags |= SA_RESTART;
    fl_sample_keep_sigaction(sig, &act, 0);
    return 0;
}
