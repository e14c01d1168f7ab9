// The fault behind a signal a program's handler re-raised.
//
// A handler installed after the agent's (python3's faulthandler, a test
// framework's) catches the fault, does its work, puts the agent's handler
// back and re-raises the signal with raise(): the agent sees SI_TKILL from
// its own process, with no fault address. The kernel's frame for the
// original fault is still on the stack, above the re-raising handler's
// frames, and says what faulted and where.
#ifndef FL_RERAISED_FAULT_H
#define FL_RERAISED_FAULT_H

#include <signal.h>
#include <stdint.h>
#include <ucontext.h>

/// The original fault, as its kernel frame tells it.
typedef struct {
    int code;              ///< si_code (SEGV_MAPERR, ILL_ILLOPN, …)
    uintptr_t address;     ///< si_addr: the fault address
    uintptr_t pc;          ///< the faulting instruction
    uintptr_t sp;          ///< the stack pointer at the fault
    int from_siginfo;      ///< 1: the frame's siginfo (an SA_SIGINFO handler); 0: derived from the trap registers
} fl_reraised;

/// Records the signal-return trampoline the C library gives every handler
/// (the kernel's `sa_restorer` of the agent's handler for `sig`) as
/// fl_signal_trampoline (report_file.h): a handler's return address, the
/// first word of its kernel frame. Call after installing the handler.
void fl_reraised_fault_init(int sig);

/// When `info` is a fault signal the process sent itself (si_code <= 0,
/// si_pid its own) and the stack above `uc`'s stack pointer holds the
/// kernel's frame of a fault of the same signal, fills `out` and returns 1;
/// else 0. Reads the stack through fl_copy_own_memory: never faults.
/// x86-64 only. Async-signal-safe.
int fl_reraised_fault(int sig, const siginfo_t *info, const ucontext_t *uc, fl_reraised *out);

#endif
