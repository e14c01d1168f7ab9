#include "fault_access.h"
#include "own_memory.h"
#include "insn_access.h"

#include <stdint.h>

int fl_fault_access_of(int sig, const siginfo_t *info, const ucontext_t *uc, fl_fault_access *out) {
    out->type = 0;
    out->size = 0;
    out->source = 0;
    if ((sig != SIGSEGV && sig != SIGBUS) || !info || !uc || info->si_code <= 0) return 0;
#if defined(__x86_64__)
    long trapno = (long)uc->uc_mcontext.gregs[REG_TRAPNO];
    unsigned long err = (unsigned long)uc->uc_mcontext.gregs[REG_ERR];
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    if (trapno == 14) {
        // Page fault: bit 1 a write, bit 4 an instruction fetch.
        out->type = err & 16 ? "execute" : err & 2 ? "write" : "read";
        out->source = "error_code";
        if (err & 16) return 1;
    }
    unsigned char code[16];
    int write, size;
    int n = 16;
    // The instruction may end near the end of its mapping: fewer bytes then.
    while (n > 0 && fl_read_own_memory(pc, code, (size_t)n) != 0) n -= 4;
    if (n > 0 && fl_decode_memory_access(code, n, &write, &size)) {
        out->size = size;
        if (!out->type) { out->type = write ? "write" : "read"; out->source = "instruction"; }
    }
    return out->type != 0 || out->size != 0;
#else
    (void)uc;
    return 0;
#endif
}
