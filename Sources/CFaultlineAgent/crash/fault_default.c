#include "fault_default.h"
#include "raw_syscall.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define FL_MAX_SIGNALS 8

static int g_sigs[FL_MAX_SIGNALS];
static int g_count;
static struct sigaction g_agent;
/// Set once g_sigs and g_agent are filled (fl_fault_default_init).
static atomic_int g_ready;
/// Bit sig-1: the program's action for sig is a recorded SIG_DFL.
static atomic_ullong g_recorded;

void fl_fault_default_init(const int *sigs, int n, const struct sigaction *agent) {
    if (n > FL_MAX_SIGNALS) n = FL_MAX_SIGNALS;
    for (int i = 0; i < n; i++) g_sigs[i] = sigs[i];
    g_count = n;
    g_agent = *agent;
    atomic_store(&g_ready, 1);
}

int fl_fault_default_applies(int sig) {
    if (!atomic_load(&g_ready)) return 0;
    for (int i = 0; i < g_count; i++)
        if (g_sigs[i] == sig) return 1;
    return 0;
}

static unsigned long long bit(int sig) { return 1ull << (sig - 1); }

int fl_fault_default_is_set(int sig) { return sig > 0 && sig <= 64 && (atomic_load(&g_recorded) & bit(sig)) != 0; }

// 1 when `sig` is blocked on the calling thread. The agent keeps the crash
// signals but SIGABRT out of every mask a program sets (fault_mask.h), so
// one is blocked only by the kernel, while a handler of it without
// SA_NODEFER runs.
static int blocked_here(int sig) {
    uint64_t cur = 0;
    if (fl_raw_syscall(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)&cur, FL_KERNEL_SIGSET_SIZE) != 0) return 0;
    return (cur & bit(sig)) != 0;
}

// What a program reads back for its recorded SIG_DFL.
static void default_action(struct sigaction *out) {
    memset(out, 0, sizeof *out);
    out->sa_handler = SIG_DFL;
}

int fl_fault_default_sigaction(int (*real)(int, const struct sigaction *, struct sigaction *), int sig,
                               const struct sigaction *act, struct sigaction *old) {
    int was = fl_fault_default_is_set(sig);
    if (!act) {
        if (!was) return real(sig, 0, old);
        if (old) default_action(old);
        return 0;
    }
    // The handler field is one union with sa_sigaction: null is SIG_DFL
    // whatever the flags, as for the kernel. Only from inside the signal's
    // own handler (blocked there): node's and the classic way to hand a
    // fault on. A SIG_DFL set elsewhere and a signal sent after it (unshare
    // ends itself so by the signal its child died of) is installed: the
    // kernel's silent default, not a crash to report.
    int dfl = act->sa_handler == SIG_DFL && blocked_here(sig);
    int rc = real(sig, dfl ? &g_agent : act, old);
    if (rc != 0) return rc;
    if (dfl) atomic_fetch_or(&g_recorded, bit(sig));
    else atomic_fetch_and(&g_recorded, ~bit(sig));
    if (old && was) default_action(old);
    return 0;
}

void fl_fault_default_disable(void) {
    atomic_store(&g_ready, 0);
    atomic_store(&g_recorded, 0);
}
