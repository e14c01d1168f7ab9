// Interposes pthread_sigmask, sigprocmask and sigaction (and glibc's
// exported __sigaction and __libc_sigaction) so that no thread
// blocks the synchronous fault signals (see fault_mask.h). Only the signals
// a fault raises are kept open; a program's mask is honoured for every
// other signal, and fully until the crash detector is installed.
#include "interpose_next.h"
#include "fault_default.h"
#include "fault_mask.h"
#include "sample_keep.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>

#define FL_EXPORT __attribute__((visibility("default")))

typedef int (*mask_fn)(int, const sigset_t *, sigset_t *);
typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

static const int k_faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS};
static atomic_int g_keep_open;

uint64_t fl_fault_mask_bits(void) {
    uint64_t bits = 0;
    for (unsigned i = 0; i < sizeof k_faults / sizeof k_faults[0]; i++) bits |= 1ull << (k_faults[i] - 1);
    return bits;
}
// Resolved before g_keep_open is set, so a handler (the crash path calls
// sigprocmask) never runs dlsym.
static mask_fn g_real_pthread_sigmask, g_real_sigprocmask;
static sigaction_fn g_real_sigaction;
FL_NEXT_SLOT(g_real_pthread_sigmask, "pthread_sigmask")
FL_NEXT_SLOT(g_real_sigprocmask, "sigprocmask")
FL_NEXT_SLOT(g_real_sigaction, "sigaction")
// glibc exports sigaction under two more names; each goes to its own next
// definition (__libc_sigaction, unlike the others, lets glibc's own
// SIGCANCEL and SIGSETXID be set).
static sigaction_fn g_real___sigaction, g_real___libc_sigaction;
FL_NEXT_SLOT(g_real___sigaction, "__sigaction")
FL_NEXT_SLOT(g_real___libc_sigaction, "__libc_sigaction")

static void resolve(void) {
    if (!g_real_pthread_sigmask) g_real_pthread_sigmask = (mask_fn)dlsym(RTLD_NEXT, "pthread_sigmask");
    if (!g_real_sigprocmask) g_real_sigprocmask = (mask_fn)dlsym(RTLD_NEXT, "sigprocmask");
    if (!g_real_sigaction) g_real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
}

void fl_fault_mask_keep_open(void) {
    resolve();
    if (g_real_pthread_sigmask && g_real_sigprocmask && g_real_sigaction) atomic_store(&g_keep_open, 1);
}

void fl_fault_mask_let_close(void) { atomic_store(&g_keep_open, 0); }

static void remove_faults(sigset_t *set) {
    for (unsigned i = 0; i < sizeof k_faults / sizeof k_faults[0]; i++) sigdelset(set, k_faults[i]);
}

// `set`, or a copy of it without the fault signals in `copy`.
static const sigset_t *open_faults(int how, const sigset_t *set, sigset_t *copy) {
    if (!set || how == SIG_UNBLOCK || !atomic_load(&g_keep_open)) return set;
    *copy = *set;
    remove_faults(copy);
    return copy;
}

FL_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old) {
    if (!g_real_pthread_sigmask) resolve();
    sigset_t copy;
    return g_real_pthread_sigmask(how, open_faults(how, set, &copy), old);
}

FL_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old) {
    if (!g_real_sigprocmask) resolve();
    sigset_t copy;
    return g_real_sigprocmask(how, open_faults(how, set, &copy), old);
}

// What the sigaction interposers do, `real` being the next definition.
static int interposed_sigaction(sigaction_fn real, int sig, const struct sigaction *act, struct sigaction *old) {
    if (fl_sample_keep_sigaction(sig, act, old)) return 0;
    if (!real) { errno = ENOSYS; return -1; }
    struct sigaction copy;
    if (act && atomic_load(&g_keep_open)) {
        copy = *act;
        remove_faults(&copy.sa_mask);
        act = &copy;
    }
    // A SIG_DFL on a crash signal keeps the crash handler (fault_default.h).
    if (fl_fault_default_applies(sig)) return fl_fault_default_sigaction(real, sig, act, old);
    return real(sig, act, old);
}

/// A handler's sa_mask is blocked while it runs: a crash inside the
/// program's own SIGTERM handler must reach ours too.
/// The sample signal's handler stays the agent's (sample_keep.h), and so
/// does the crash handler when the program sets SIG_DFL (fault_default.h).
FL_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
    if (!g_real_sigaction) resolve();
    return interposed_sigaction(g_real_sigaction, sig, act, old);
}

/// glibc's exported alias of sigaction (no program is meant to call it, but
/// one that did replaced the agent's sample handler): the same as sigaction.
FL_EXPORT int __sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
    if (!g_real___sigaction) g_real___sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "__sigaction");
    return interposed_sigaction(g_real___sigaction, sig, act, old);
}

/// glibc's implementation of sigaction, exported to its own libraries
/// (GLIBC_PRIVATE): the same as sigaction.
FL_EXPORT int __libc_sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
    if (!g_real___libc_sigaction) g_real___libc_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "__libc_sigaction");
    return interposed_sigaction(g_real___libc_sigaction, sig, act, old);
}

int fl_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
    if (!g_real_sigaction) resolve();
    return g_real_sigaction(sig, act, old);
}
