#include "stack_overflow.h"

int fl_fault_is_stack_overflow(int sig, int code, uintptr_t addr, uintptr_t sp) {
    if (sig != SIGSEGV || (code != SEGV_MAPERR && code != SEGV_ACCERR)) return 0;
    // A page below: a push, a call or a stack probe faults just under the
    // stack pointer; up to 64 KiB above: a frame's own stores after the
    // stack pointer moved past the guard page in one step.
    return addr + 4096 > sp && addr < sp + 0xFFFF;
}
