#include "program_handler.h"
#include "fault_mask.h"
#include "raw_syscall.h"
#include "stderr_capture.h"
#include "unwinder.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

/// The stack the recorded frame is on: [lo, hi). lo is 0 when the handler
/// was entered on the thread's own stack, whose end is not known here.
static __thread uintptr_t t_frame __attribute__((tls_model("initial-exec")));
static __thread uintptr_t t_frame_lo __attribute__((tls_model("initial-exec")));
/// Threads inside a program's handler (a recorded frame each): stderr
/// capture is given back while any is, and taken up again when the last
/// leaves and the program goes on.
static atomic_int g_inside;
/// Times a thread left a program's handler with the program going on.
static atomic_uint g_went_on;

static uint64_t bit(int sig) { return 1ull << (sig - 1); }

static uint64_t kernel_bits(const sigset_t *set) {
    uint64_t bits;
    memcpy(&bits, set, sizeof bits);
    return bits;
}

int fl_program_handler_is_one(const struct sigaction *act) {
    return act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
}

// The thread left the program's handler (its record is cleared): the last
// one out takes stderr capture up again when the program goes on and
// `may_resume` (the caller may call libc where it runs).
static void left_handler(int goes_on, int may_resume) {
    if (goes_on) atomic_fetch_add(&g_went_on, 1);
    if (atomic_fetch_sub(&g_inside, 1) == 1 && goes_on && may_resume) fl_stderr_resume();
}

// 1 when the stack address `sp` lies within the frames of the program's
// handler this thread is running: below the recorded frame, on its stack.
static int within_handler(uintptr_t sp) { return sp < t_frame && sp >= t_frame_lo; }

unsigned fl_program_went_on_count(void) { return atomic_load(&g_went_on); }

int fl_is_hardware_fault(int sig, const siginfo_t *info) {
    return info->si_code > 0 && (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE);
}

int fl_program_goes_on(int sig, const siginfo_t *info) {
    return fl_is_hardware_fault(sig, info) ? !fl_disposition_is_default(sig) : sig != SIGABRT;
}

void fl_program_handler_call(const struct sigaction *act, int sig, siginfo_t *info, void *ucv, uintptr_t frame) {
    const ucontext_t *uc = ucv;
    // The kernel saved the alternate stack it entered the handler on, if
    // any: the frame is on it when it lies inside.
    uintptr_t lo = (uintptr_t)uc->uc_stack.ss_sp;
    int on_alt = !(uc->uc_stack.ss_flags & SS_DISABLE) && frame >= lo && frame - lo < uc->uc_stack.ss_size;
    uint64_t mask = kernel_bits(&uc->uc_sigmask) | kernel_bits(&act->sa_mask);
    if (!(act->sa_flags & SA_NODEFER)) mask |= bit(sig);
    mask &= ~fl_fault_mask_bits();
    uint64_t ours;
    fl_raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&mask, (long)&ours, FL_KERNEL_SIGSET_SIZE);
    // The handler may end the process (reset the default and return,
    // raise, _exit): what it writes goes straight to the real stderr, and
    // what is in the pipe is out first.
    atomic_fetch_add(&g_inside, 1);
    fl_stderr_release();
    // No record is in force here: the crash handler cleared any left by a
    // handler that went away unseen (fl_program_handler_faulted), and a
    // fault inside a handler is never handed to one, so calls do not nest.
    t_frame_lo = on_alt ? lo : 0;
    t_frame = frame;
    if (act->sa_flags & SA_SIGINFO) act->sa_sigaction(sig, info, ucv);
    else act->sa_handler(sig);
    // A handler that switched away by swapcontext was counted out then,
    // and may come back here later: counted once.
    if (t_frame == frame) {
        t_frame = 0;
        left_handler(fl_program_goes_on(sig, info), 1);
    }
    // The caller may go on to write a report: with its own mask again.
    fl_raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&ours, 0, FL_KERNEL_SIGSET_SIZE);
}

int fl_program_handler_faulted(const void *uc) {
    if (!t_frame) return 0;
    if (within_handler(fl_context_sp((const ucontext_t *)uc))) return 1;
    // The handler left in a way the agent did not see (a jump of the
    // program's own, not through libc): the program went on. Capture is not
    // taken up here: the crash handler is still on the stack it was entered
    // on, where it calls no libc, and it gives capture back anyway to
    // report this fault or hand it on (the handler's return takes it up
    // again).
    t_frame = 0;
    left_handler(1, 0);
    return 0;
}

void fl_program_handler_jumping(const void *env) {
    if (!t_frame) return;
    // A jmp_buf between here and the recorded frame is the handler's own
    // (a jump inside it); any other (a global, the heap, a frame further
    // out) takes the thread out of the handler.
    uintptr_t at = (uintptr_t)env, here = (uintptr_t)__builtin_frame_address(0);
    if (at >= here && at < t_frame) return;
    t_frame = 0;
    left_handler(1, 1);
}

void fl_program_handler_resuming_at(uintptr_t sp) {
    if (!t_frame || within_handler(sp)) return;
    t_frame = 0;
    left_handler(1, 1);
}

int fl_disposition_is_default(int sig) {
    fl_kernel_sigaction cur;
    if (fl_raw_syscall(SYS_rt_sigaction, sig, 0, (long)&cur, FL_KERNEL_SIGSET_SIZE) != 0) return 0;
    return cur.handler == (void *)SIG_DFL || cur.handler == (void *)SIG_IGN;
}
