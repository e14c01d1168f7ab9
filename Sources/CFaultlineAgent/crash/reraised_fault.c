#include "reraised_fault.h"
#include "own_memory.h"
#include "raw_syscall.h"
#include "report_file.h"
#include "unwinder.h"

#include <sys/syscall.h>
#include <unistd.h>

/// How far above the stack pointer the original frame is looked for: the
/// re-raising handler's own frames (a traceback printer, raise) lie between.
#define FL_RERAISE_SCAN_BYTES (64u << 10)
/// Bytes read from the stack at a time: a page, mapped whole or not at all.
#define FL_RERAISE_CHUNK 4096u

void fl_reraised_fault_init(int sig) {
    fl_kernel_sigaction cur;
    // Frames at it also say "signal handler called" (report_file.h).
    if (fl_raw_syscall(SYS_rt_sigaction, sig, 0, (long)&cur, FL_KERNEL_SIGSET_SIZE) == 0)
        fl_signal_trampoline = (uintptr_t)cur.restorer;
}

#if defined(__x86_64__)
/// The kernel's rt_sigframe on x86-64: the handler's return address (the
/// restorer), its struct ucontext (flags, link, stack_t, the 256-byte
/// sigcontext, one mask word: 304 bytes), then a siginfo, written only for
/// an SA_SIGINFO handler (python3's faulthandler has none).
#define FL_FRAME_UC 8u
#define FL_FRAME_INFO (8u + 304u)
/// x86 trap numbers in the sigcontext.
#define FL_TRAP_DE 0   // divide error
#define FL_TRAP_UD 6   // invalid opcode
#define FL_TRAP_GP 13  // general protection
#define FL_TRAP_PF 14  // page fault

// What the trap registers say the kernel sent for `sig`; 0 when they do
// not fit `sig` (then this is not its frame).
static int derive(int sig, const ucontext_t *k, fl_reraised *out) {
    const greg_t *g = k->uc_mcontext.gregs;
    uint64_t trap = (uint64_t)g[REG_TRAPNO], err = (uint64_t)g[REG_ERR];
    out->pc = (uintptr_t)g[REG_RIP];
    if (sig == SIGSEGV && trap == FL_TRAP_PF) {
        out->code = err & 1 ? SEGV_ACCERR : SEGV_MAPERR;  // bit 0: the page was present
        out->address = (uintptr_t)g[REG_CR2];
    } else if (sig == SIGSEGV && trap == FL_TRAP_GP) {
        out->code = SI_KERNEL, out->address = 0;  // a general-protection fault names no address
    } else if (sig == SIGBUS && trap == FL_TRAP_PF) {
        out->code = BUS_ADRERR, out->address = (uintptr_t)g[REG_CR2];
    } else if (sig == SIGILL && trap == FL_TRAP_UD) {
        out->code = ILL_ILLOPN, out->address = out->pc;
    } else if (sig == SIGFPE && trap == FL_TRAP_DE) {
        out->code = FPE_INTDIV, out->address = out->pc;
    } else {
        return 0;
    }
    return 1;
}

// The frame whose first word (the restorer) is at `at`, if it is the
// kernel's frame of a fault of `sig`.
static int frame_at(uintptr_t at, int sig, fl_reraised *out) {
    // The kernel's ucontext matches glibc's ucontext_t up to the general
    // registers (flags, link, stack, gregs): copy that part only.
    ucontext_t uc;
    ucontext_t *k = &uc;
    size_t head = (size_t)((char *)&k->uc_mcontext.fpregs - (char *)k) + sizeof k->uc_mcontext.fpregs;
    if (fl_copy_own_memory(at + FL_FRAME_UC, k, head) != 0) return 0;
    // A real frame: flags the kernel sets (UC_FP_XSTATE, UC_SIGCONTEXT_SS,
    // UC_STRICT_RESTORE_SS) and no others, no link, and its FP state
    // pointer (if any) just above it, where the kernel put it.
    uintptr_t fp = (uintptr_t)k->uc_mcontext.fpregs;
    if ((k->uc_flags & ~7ul) || !(k->uc_flags & 2) || k->uc_link || (fp && (fp < at || fp > at + 2048))) return 0;
    if (!derive(sig, k, out)) return 0;
    out->sp = (uintptr_t)k->uc_mcontext.gregs[REG_RSP];
    siginfo_t si;
    out->from_siginfo = 0;
    // The siginfo, where one was written and agrees with the registers.
    if (fl_copy_own_memory(at + FL_FRAME_INFO, &si, sizeof si) == 0 && si.si_signo == sig && si.si_code == out->code &&
        (uintptr_t)si.si_addr == out->address)
        out->from_siginfo = 1;
    return 1;
}
#endif

int fl_reraised_fault(int sig, const siginfo_t *info, const ucontext_t *uc, fl_reraised *out) {
#if defined(__x86_64__)
    if (!fl_signal_trampoline || !uc || info->si_code > 0 || info->si_pid != getpid()) return 0;
    if (sig != SIGSEGV && sig != SIGBUS && sig != SIGILL && sig != SIGFPE) return 0;
    uintptr_t sp = fl_context_sp(uc) & ~(uintptr_t)7;
    uintptr_t words[FL_RERAISE_CHUNK / sizeof(uintptr_t)];
    // Page by page: the scan ends at the first one past the stack's top.
    for (uintptr_t at = sp; at < sp + FL_RERAISE_SCAN_BYTES;) {
        uintptr_t page_end = (at | (FL_RERAISE_CHUNK - 1)) + 1;
        size_t n = (size_t)(page_end - at) / sizeof(uintptr_t);
        if (fl_copy_own_memory(at, words, n * sizeof(uintptr_t)) != 0) return 0;
        for (size_t i = 0; i < n; i++)
            if (words[i] == fl_signal_trampoline && frame_at(at + i * sizeof(uintptr_t), sig, out)) return 1;
        at = page_end;
    }
#else
    (void)sig, (void)info, (void)uc, (void)out;
#endif
    return 0;
}
