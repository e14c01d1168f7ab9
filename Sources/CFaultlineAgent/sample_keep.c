#include "sample_keep.h"
#include "fault_mask.h"
#include "thread_capture.h"

#include <stdatomic.h>
#include <stddef.h>

// The program's action lives in one of two slots; g_current names the one
// a reader uses (-1: the program set none). A writer fills the other slot,
// then publishes it, so a handler running meanwhile reads a whole action
// (unless two more calls change it while that handler reads; programs set
// a signal's action once or twice, at start). Writers take g_writing: sigaction calls on this one signal from two
// threads at once are serialised (a handler that calls sigaction on it
// while interrupting such a call of its own thread would spin; no runtime
// seen does).
static struct sigaction g_slots[2];
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

void fl_sample_keep_forward(int sig, siginfo_t *info, void *ucontext) {
    int cur = atomic_load(&g_current);
    if (cur < 0) return;
    const struct sigaction *a = &g_slots[cur];
    if (a->sa_flags & SA_SIGINFO) {
        if (a->sa_sigaction) a->sa_sigaction(sig, info, ucontext);
    } else if (a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN) {
        a->sa_handler(sig);
    }
}
