// Sleeping threads a world stop must not wake (shim_leak_sleepers.h).
#include "shim_leak_sleepers.h"
#include "proc_tid.h"
#include "sigsafe.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>

#define MAX_SLEEPERS 256

typedef struct sleeper {
    uint32_t tid;
    long nr;
    uint64_t args[6], sp, pc;  // as /proc/<tid>/syscall gave them
} sleeper;

static sleeper g_sleepers[MAX_SLEEPERS];
static _Atomic int g_count;

void shim_sleepers_reset(void) { atomic_store(&g_count, 0); }

int shim_sleeper_resume_args(long nr, const uint64_t a[6], uint64_t out[6]) {
    for (int i = 0; i < 6; i++) out[i] = a[i];
    switch (nr) {
    case SYS_nanosleep:
        // The kernel wrote the time left into `rem` when there is one; with
        // none the sleep starts over (longer, never shorter, than asked).
        if (a[1]) out[0] = a[1];
        return 1;
    case SYS_clock_nanosleep:
        if (!(a[1] & TIMER_ABSTIME) && a[3]) out[2] = a[3];
        return 1;
    // Linux writes the time left back into select's and ppoll's timeout.
    case SYS_pselect6:
    case SYS_ppoll:
        return 1;
#ifdef SYS_select
    case SYS_select:
        return 1;
#endif
#ifdef SYS_pause
    case SYS_pause:
        return 1;
#endif
#ifdef SYS_poll
    case SYS_poll:
        return (int)a[2] < 0;  // a timeout in ms is not written back: only "for ever"
#endif
#ifdef SYS_epoll_wait
    case SYS_epoll_wait:
        return (int)a[3] < 0;
#endif
    case SYS_epoll_pwait:
        return (int)a[3] < 0;
    default:
        return 0;
    }
}

static uint64_t hex(const char **p) {
    while (**p == ' ') (*p)++;
    if ((*p)[0] == '0' && (*p)[1] == 'x') *p += 2;
    return fl_parse_hex(*p, p);
}

void shim_sleepers_note(uint32_t proc_tid, uint32_t tid) {
    char path[64], buf[256];
    fl_proc_task_path(path, sizeof path, (pid_t)proc_tid, "syscall");
    ssize_t n = fl_read_file(path, buf, sizeof buf - 1);
    if (n <= 0 || buf[0] < '0' || buf[0] > '9') return;  // "running", or -1: not in a call
    buf[n] = 0;
    const char *p = buf;
    sleeper s = {.tid = tid, .nr = (long)fl_parse_dec(p, &p)};
    for (int i = 0; i < 6; i++) s.args[i] = hex(&p);
    s.sp = hex(&p);
    s.pc = hex(&p);
    uint64_t unused[6];
    if (!shim_sleeper_resume_args(s.nr, s.args, unused)) return;
    int i = atomic_load(&g_count);
    if (i >= MAX_SLEEPERS) return;
    g_sleepers[i] = s;
    atomic_store(&g_count, i + 1);
}

// 1 when a signal the interrupted code does not block is pending: it
// arrived while the thread was parked and would have ended the sleep
// itself (an alarm a program times out with), so EINTR stays.
static int signal_waits(const ucontext_t *uc) {
    sigset_t pending;
    if (sigpending(&pending) != 0) return 0;
    for (int sig = 1; sig < NSIG; sig++)
        if (sigismember(&pending, sig) == 1 && sigismember(&uc->uc_sigmask, sig) != 1) return 1;
    return 0;
}

void shim_sleepers_restart(ucontext_t *uc, uint32_t tid) {
    int n = atomic_load(&g_count);
    if (n && signal_waits(uc)) return;
    for (int i = 0; i < n; i++) {
        const sleeper *s = &g_sleepers[i];
        if (s->tid != tid) continue;
        uint64_t a[6];
        shim_sleeper_resume_args(s->nr, s->args, a);
#if defined(__x86_64__)
        greg_t *g = uc->uc_mcontext.gregs;
        // Still where the call returns, with EINTR: this stop's signal ended it.
        if ((uint64_t)g[REG_RIP] != s->pc || (uint64_t)g[REG_RSP] != s->sp || g[REG_RAX] != -EINTR) return;
        g[REG_RAX] = s->nr;
        g[REG_RDI] = (greg_t)a[0], g[REG_RSI] = (greg_t)a[1], g[REG_RDX] = (greg_t)a[2];
        g[REG_R10] = (greg_t)a[3], g[REG_R8] = (greg_t)a[4], g[REG_R9] = (greg_t)a[5];
        g[REG_RIP] -= 2;  // the `syscall` instruction
#elif defined(__aarch64__)
        mcontext_t *m = &uc->uc_mcontext;
        if (m->pc != s->pc || m->sp != s->sp || (int64_t)m->regs[0] != -EINTR) return;
        m->regs[8] = (uint64_t)s->nr;
        for (int r = 0; r < 6; r++) m->regs[r] = a[r];
        m->pc -= 4;  // the `svc #0` instruction
#endif
        return;
    }
}
