#include "sample_keep.h"
#include "fault_mask.h"
#include "raw_syscall.h"
#include "sample_reroute.h"
#include "stderr_capture.h"
#include "thread_capture.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

// The program's action lives in one of two slots; g_current names the one
// a reader uses (-1: the program set none). A writer fills the other slot,
// then publishes it, so a handler running meanwhile reads a whole action
// (unless two more calls change it while that handler reads; programs set
// a signal's action once or twice, at start). Writers take g_writing: sigaction calls on this one signal from two
// threads at once are serialised (a handler that calls sigaction on it
// while interrupting such a call of its own thread would spin; no runtime
// seen does). The third slot stays zero, SIG_DFL with no flags and an
// empty mask: what a one-shot action (SA_RESETHAND) becomes at its
// delivery; only the sample handler publishes it, and no writer fills it.
#define RESET_SLOT 2
static struct sigaction g_slots[3];
static atomic_int g_current = -1;
static atomic_flag g_writing = ATOMIC_FLAG_INIT;

int fl_is_sample_signal(int sig) {
    int signo = fl_threads_signal();
    return signo && sig == signo;
}

static int is_agent_handler(const struct sigaction *act) {
    return (act->sa_flags & SA_SIGINFO) && fl_threads_is_sample_handler(act->sa_sigaction);
}

int fl_sample_keep_sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
    if (!fl_is_sample_signal(sig)) return 0;
    if (!act) {
        int cur = atomic_load(&g_current);
        if (cur < 0) return 0;  // the program set none: the installed one is the answer
        if (old) *old = g_slots[cur];
        return 1;
    }
    while (atomic_flag_test_and_set(&g_writing)) {}
    int cur = atomic_load(&g_current);
    if (old) {
        if (cur >= 0) *old = g_slots[cur];
        else fl_real_sigaction(sig, 0, old);  // the agent's own: what is installed
    }
    if (is_agent_handler(act)) {
        // The agent's own handler, set again (by a program putting back the
        // action it read before it installed its own): the program's
        // action is dropped.
        atomic_store(&g_current, -1);
    } else {
        int next = cur == 0 ? 1 : 0;
        g_slots[next] = *act;
        atomic_store(&g_current, next);
    }
    atomic_flag_clear(&g_writing);
    return 1;
}

/// The parts of the program's action a delivery uses, read field by field
/// (a struct copy may be a memcpy call: raw_syscall.h).
typedef struct {
    void *handler;  // sa_handler or sa_sigaction: one union in glibc
    int flags;
    uint64_t mask;  // the kernel's 64 bits of sa_mask
} program_action;

static void read_slot(int slot, program_action *a) {
    const struct sigaction *s = &g_slots[slot];
    a->handler = (void *)s->sa_handler;
    a->flags = s->sa_flags;
    memcpy(&a->mask, &s->sa_mask, sizeof a->mask);
}

// The action this delivery takes, as the kernel picks it: a one-shot action
// is claimed by one delivery, which resets it to SIG_DFL before the
// handler runs, so the next delivery (on any thread) takes the default. A
// writer's action published while this reads wins, as if set before the
// delivery. Returns 0 when the program set none.
static int take_action(program_action *a) {
    for (;;) {
        int cur = atomic_load(&g_current);
        if (cur < 0) return 0;
        read_slot(cur, a);
        if (!(a->flags & SA_RESETHAND)) return 1;
        if (atomic_compare_exchange_strong(&g_current, &cur, RESET_SLOT)) return 1;
    }
}

// Ends the process by `sig`'s default action, as the kernel would have
// without Faultline (for a real-time signal: terminate): the default is
// installed for a moment, the signal sent to this thread and let in. A
// default that does not end the process (a signal ignored or stopping by
// default, possible only for a sample signal set by the install call) is
// taken too, and the agent's handler is put back after.
static void take_default(int sig) {
    fl_kernel_sigaction dfl = {0}, agent;
    if (fl_raw_syscall(SYS_rt_sigaction, sig, (long)&dfl, (long)&agent, FL_KERNEL_SIGSET_SIZE) != 0) return;
    long pid = fl_raw_syscall(SYS_getpid, 0, 0, 0, 0), tid = fl_raw_syscall(SYS_gettid, 0, 0, 0, 0);
    fl_raw_syscall(SYS_tgkill, pid, tid, sig, 0);
    uint64_t open = 1ull << (sig - 1), ours;
    fl_raw_syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&open, (long)&ours, FL_KERNEL_SIGSET_SIZE);
    fl_raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&ours, 0, FL_KERNEL_SIGSET_SIZE);
    fl_raw_syscall(SYS_rt_sigaction, sig, (long)&agent, 0, FL_KERNEL_SIGSET_SIZE);
}

void fl_sample_keep_forward(int sig, siginfo_t *info, void *ucontext) {
    if (fl_sample_reroute(sig, info)) return;  // taken by a Faultline thread: the program's to take
    program_action a;
    if (!take_action(&a) || a.handler == (void *)SIG_DFL) {
        take_default(sig);
        return;
    }
    if (a.handler == (void *)SIG_IGN) return;
    // The mask the kernel would have given the program's handler: the
    // interrupted code's, its sa_mask, and the signal itself unless
    // SA_NODEFER; never the faults (fault_mask.h). The agent's handler
    // runs with almost every signal blocked, which is not the program's.
    // Not set back after: the sample handler returns at once, and the
    // kernel's sigreturn restores the interrupted code's mask (a second
    // system call here took 0.1 us more a delivery, docs/agent.md).
    uint64_t mask = 0;
    const ucontext_t *uc = ucontext;
    if (uc) memcpy(&mask, &uc->uc_sigmask, sizeof mask);
    mask |= a.mask;
    if (!(a.flags & SA_NODEFER)) mask |= 1ull << (sig - 1);
    mask &= ~fl_fault_mask_bits();
    fl_raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&mask, 0, FL_KERNEL_SIGSET_SIZE);
    if (a.flags & SA_SIGINFO) ((void (*)(int, siginfo_t *, void *))a.handler)(sig, info, ucontext);
    else ((void (*)(int))a.handler)(sig);
}
