// Whether a fault was a READ, a WRITE or an instruction fetch, and how many
// bytes the access was (as AddressSanitizer's "READ of size 4"): the type
// from the page-fault error code the kernel saved in the context (x86-64
// ERR), the size (and the type, for a general-protection fault, which has
// no error code) from decoding the faulting instruction's memory operand.
// Async-signal-safe: the instruction bytes are read through the kernel.
#ifndef FL_FAULT_ACCESS_H
#define FL_FAULT_ACCESS_H

#include <signal.h>
#include <ucontext.h>

/// What the faulting access was.
typedef struct fl_fault_access {
    const char *type;    ///< "read", "write", "execute", or NULL when unknown
    int size;            ///< bytes accessed, 0 when unknown
    const char *source;  ///< "error_code" or "instruction": where the type came from
} fl_fault_access;

/// Fills `out` for a SIGSEGV or SIGBUS the kernel raised; 0 when nothing is known.
int fl_fault_access_of(int sig, const siginfo_t *info, const ucontext_t *uc, fl_fault_access *out);

#endif
