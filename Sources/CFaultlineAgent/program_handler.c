#include "program_handler.h"
#include "raw_syscall.h"
#include "unwinder.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

/// The stack the recorded frame is on: [lo, hi). lo is 0 when the handler
/// was entered on the thread's own stack, whose end is not known here.
static __thread uintptr_t t_frame __attribute__((tls_model("initial-exec")));
static __thread uintptr_t t_frame_lo __attribute__((tls_model("initial-exec")));

static uint64_t bit(int sig) { return 1ull << (sig - 1); }

// The signals fl_fault_mask_keep_open keeps out of every mask.
static uint64_t fault_bits(void) {
    return bit(SIGSEGV) | bit(SIGBUS) | bit(SIGILL) | bit(SIGFPE) | bit(SIGTRAP) | bit(SIGSYS);
}

static uint64_t kernel_bits(const sigset_t *set) {
    uint64_t bits;
    memcpy(&bits, set, sizeof bits);
    return bits;
}

int fl_program_handler_is_one(const struct sigaction *act) {
    return act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
}

void fl_program_handler_call(const struct sigaction *act, int sig, siginfo_t *info, void *ucv, uintptr_t frame) {
    const ucontext_t *uc = ucv;
    // The kernel saved the alternate stack it entered the handler on, if
    // any: the frame is on it when it lies inside.
    uintptr_t lo = (uintptr_t)uc->uc_stack.ss_sp;
    int on_alt = !(uc->uc_stack.ss_flags & SS_DISABLE) && frame >= lo && frame - lo < uc->uc_stack.ss_size;
    uint64_t mask = kernel_bits(&uc->uc_sigmask) | kernel_bits(&act->sa_mask);
    if (!(act->sa_flags & SA_NODEFER)) mask |= bit(sig);
    mask &= ~fault_bits();
    uint64_t ours;
    fl_raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&mask, (long)&ours, FL_KERNEL_SIGSET_SIZE);
    t_frame_lo = on_alt ? lo : 0;
    t_frame = frame;
    if (act->sa_flags & SA_SIGINFO) act->sa_sigaction(sig, info, ucv);
    else act->sa_handler(sig);
    t_frame = 0;
    // The caller may go on to write a report: with its own mask again.
    fl_raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&ours, 0, FL_KERNEL_SIGSET_SIZE);
}

int fl_program_handler_faulted(const void *uc) {
    if (!t_frame) return 0;
    uintptr_t sp = fl_context_sp((const ucontext_t *)uc);
    if (sp < t_frame && sp >= t_frame_lo) return 1;
    t_frame = 0;  // the handler jumped out: the program lives on
    return 0;
}

int fl_disposition_is_default(int sig) {
    struct { void *handler; unsigned long flags; void *restorer; uint64_t mask; } cur;  // the kernel's struct sigaction
    if (fl_raw_syscall(SYS_rt_sigaction, sig, 0, (long)&cur, FL_KERNEL_SIGSET_SIZE) != 0) return 0;
    return cur.handler == (void *)SIG_DFL || cur.handler == (void *)SIG_IGN;
}
