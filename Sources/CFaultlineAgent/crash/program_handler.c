#include "program_handler.h"
#include "fault_default.h"
#include "fault_mask.h"
#include "raw_syscall.h"
#include "stderr_capture.h"
#include "unwinder.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

/// A program's handler this thread is running (fl_program_handler_call):
/// the caller's frame, the low end of the stack it is on (0 when the handler
/// was entered on the thread's own stack, whose end is not known here), its
/// signal, and the signals the kernel would have blocked while it runs.
typedef struct {
    uintptr_t frame, lo;
    uint64_t blocked;
    int sig;
} handler_record;
/// At most one record per fault signal: a signal is never handed to a
/// handler inside its own (fl_program_handler_nests).
#define FL_NEST_MAX 8
/// The handlers this thread is running, outermost first; a handler called
/// inside another (a fault it did not block, for which the program has a
/// handler) runs below it on the same stack.
static __thread handler_record t_records[FL_NEST_MAX] __attribute__((tls_model("initial-exec")));
static __thread int t_depth __attribute__((tls_model("initial-exec")));
/// Program's handlers running, on every thread (a record each): stderr
/// capture is given back while any is, and taken up again when the last
/// is left and the program goes on.
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

// The thread left a program's handler (its record is gone): counted when
// the program goes on. (`may_resume`: the caller may call libc there.)
static void left_handler(int goes_on, int may_resume) {
    if (goes_on) atomic_fetch_add(&g_went_on, 1);
}

// 1 when the stack address `sp` lies within the frames of the program's
// handler `r`: below the recorded frame, on its stack.
static int within(const handler_record *r, uintptr_t sp) { return sp < r->frame && sp >= r->lo; }

// The innermost record is gone (its handler left): counted out.
static void pop(int goes_on, int may_resume) {
    t_depth--;
    left_handler(goes_on, may_resume);
}

// Counts out every handler whose frames the thread left to run at stack
// address `sp`, innermost first, down to one that holds `sp`.
static void leave_to(uintptr_t sp, int may_resume) {
    while (t_depth > 0 && !within(&t_records[t_depth - 1], sp)) pop(1, may_resume);
}

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
    // Inside another handler, the interrupted mask lacks the fault signals
    // that one's would have blocked (they were left open below).
    if (t_depth > 0) mask |= t_records[t_depth - 1].blocked & fl_fault_mask_bits();
    uint64_t blocked = mask;
    mask &= ~fl_fault_mask_bits();
    uint64_t ours;
    fl_raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&mask, (long)&ours, FL_KERNEL_SIGSET_SIZE);
    // The handler may end the process (reset the default and return,
    // raise, _exit): what it writes goes straight to the real stderr, and
    // what is in the pipe is out first.
    // The crash handler cleared the records of handlers gone unseen
    // (fl_program_handler_faulted) and checked there is room to nest.
    t_records[t_depth] = (handler_record){frame, on_alt ? lo : 0, blocked, sig};
    t_depth++;
    if (act->sa_flags & SA_SIGINFO) act->sa_sigaction(sig, info, ucv);
    else act->sa_handler(sig);
    // A handler that switched away by swapcontext was counted out then,
    // and may come back here later: counted once.
    if (t_depth > 0 && t_records[t_depth - 1].frame == frame) pop(fl_program_goes_on(sig, info), 1);
    // The caller may go on to write a report: with its own mask again.
    fl_raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&ours, 0, FL_KERNEL_SIGSET_SIZE);
}

int fl_program_handler_faulted(const void *uc) {
    // Handlers left in a way the agent did not see (a jump of the program's
    // own, not through libc): the program went on. Capture is not taken up
    // here: the crash handler is still on the stack it was entered on,
    // where it calls no libc, and it gives capture back anyway to report
    // this fault or hand it on (the handler's return takes it up again).
    leave_to(fl_context_sp((const ucontext_t *)uc), 0);
    return t_depth > 0;
}

int fl_program_handler_nests(int sig) {
    if (t_depth == 0 || t_depth == FL_NEST_MAX) return 0;
    if (t_records[t_depth - 1].blocked & bit(sig)) return 0;
    for (int i = 0; i < t_depth; i++)
        if (t_records[i].sig == sig) return 0;
    return 1;
}

void fl_program_handler_jumping(const void *env) {
    // A jmp_buf between here and a recorded frame is that handler's own (a
    // jump inside it, or from a handler called inside it back into it); any
    // other (a global, the heap, a frame further out) takes the thread out
    // of the handlers it passes.
    uintptr_t at = (uintptr_t)env, here = (uintptr_t)__builtin_frame_address(0);
    while (t_depth > 0 && !(at >= here && at < t_records[t_depth - 1].frame)) pop(1, 1);
}

void fl_program_handler_resuming_at(uintptr_t sp) { leave_to(sp, 1); }

int fl_disposition_is_default(int sig) {
    // A SIG_DFL the program set is recorded, the crash handler installed.
    if (fl_fault_default_is_set(sig)) return 1;
    fl_kernel_sigaction cur;
    if (fl_raw_syscall(SYS_rt_sigaction, sig, 0, (long)&cur, FL_KERNEL_SIGSET_SIZE) != 0) return 0;
    return cur.handler == (void *)SIG_DFL || cur.handler == (void *)SIG_IGN;
}
