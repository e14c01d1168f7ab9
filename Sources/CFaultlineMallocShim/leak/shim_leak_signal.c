// The leak signal's handler (shim_leak_signal.h).
#include "shim_leak_signal.h"
#include "shim_arena.h"
#include "shim_leak.h"
#include "shim_live.h"
#include "shim_quarantine.h"
#include "shim_report.h"
#include "shim_thread.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int g_signo;
static int (*g_post)(void);

// --- is the thread inside the shim? ---------------------------------------

// The lock-free paths (the thread's cache, its batch of frees) are not
// among these: the check reads neither and allocates nothing (a check run
// in the handler under gdb, breakpoints on malloc, calloc, realloc, free
// and the shim's own allocator, hit none), and the blocks they hand over
// change lists only under the lists' locks. Counted as busy, a loop of
// malloc and free was inside the shim's code 4 times in 5 and its signals
// waited up to 128 ms each.
int shim_leak_busy_here(void) {
    if (shim_self.depth > 0) return 1;
    return shim_live_locked_here() || shim_arena_locked_here() || shim_quarantine_locked_here() ||
           shim_report_locked_here() || shim_leak_check_running_here();
}

// --- asking again later ----------------------------------------------------

// A one-shot POSIX timer raising the leak signal for the process (any
// thread that does not block it), made on first need in each process: the
// kernel's own calls, no allocation (glibc's timer_create may allocate).
static _Atomic pid_t g_timer_pid;
static int g_timer;
static _Atomic unsigned g_retries;  // in a row, for the back-off

static void ask_again_later(void) {
    pid_t pid = (pid_t)syscall(SYS_getpid);
    if (atomic_load(&g_timer_pid) != pid) {
        struct sigevent ev;
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_SIGNAL;
        ev.sigev_signo = g_signo;
        int id = -1;
        if (syscall(SYS_timer_create, (long)CLOCK_MONOTONIC, &ev, &id) != 0) return;
        g_timer = id;
        atomic_store(&g_timer_pid, pid);
    }
    // 1 ms, doubling up to 128 ms while the thread stays inside the shim
    // (held up there, it would otherwise be asked a thousand times a second).
    unsigned n = atomic_fetch_add(&g_retries, 1);
    long ms = 1l << (n < 7 ? n : 7);
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    its.it_value.tv_sec = ms / 1000;
    its.it_value.tv_nsec = (ms % 1000) * 1000000l;
    syscall(SYS_timer_settime, (long)g_timer, 0L, &its, (void *)0);
}

void shim_leak_signal_after_fork_child(void) {
    atomic_store(&g_timer_pid, 0);
    atomic_store(&g_retries, 0);
}

// --- answering in the handler ----------------------------------------------

// Signals taken and signals a check has answered: a signal that comes
// while another thread's handler checks folds into one more check after
// it, as the helper folds the posts it finds (leaks.signal-storm).
static _Atomic unsigned g_asked, g_answered;
static _Atomic int g_answering;  // the thread running checks in its handler, 0 when none

static void answer_here(void) {
    int me = (int)shim_tid();
    for (;;) {
        int none = 0;
        if (!atomic_compare_exchange_strong(&g_answering, &none, me)) return;  // that thread sees our request
        unsigned asked = atomic_load(&g_asked);
        if (asked != atomic_load(&g_answered)) {
            atomic_store(&g_answered, asked);
            shim_leak_check("signal");
        }
        atomic_store(&g_answering, 0);
        // A request that came after the load above, whose thread found us
        // still answering, is taken in the next turn.
        if (atomic_load(&g_asked) == atomic_load(&g_answered)) return;
    }
}

static void on_signal(int sig, siginfo_t *info, void *vuc) {
    (void)sig, (void)info, (void)vuc;
    int saved = errno;
    atomic_fetch_add(&g_asked, 1);
    if (!g_post()) {
        if (shim_leak_busy_here()) {
            ask_again_later();
        } else {
            atomic_store(&g_retries, 0);
            answer_here();
        }
    }
    errno = saved;
}

int shim_leak_signal_install(int signo, int (*post)(void)) {
    g_signo = signo;
    g_post = post;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    return sigaction(signo, &sa, 0);
}
