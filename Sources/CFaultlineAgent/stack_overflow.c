#include "stack_overflow.h"
#include "unwinder.h"

#include <stdint.h>

int fl_fault_is_stack_overflow(int sig, const siginfo_t *info, const ucontext_t *uc) {
    if (!uc || sig != SIGSEGV || (info->si_code != SEGV_MAPERR && info->si_code != SEGV_ACCERR)) return 0;
    uintptr_t addr = (uintptr_t)info->si_addr, sp = fl_context_sp(uc);
    // A page below: a push, a call or a stack probe faults just under the
    // stack pointer; up to 64 KiB above: a frame's own stores after the
    // stack pointer moved past the guard page in one step.
    return addr + 4096 > sp && addr < sp + 0xFFFF;
}
