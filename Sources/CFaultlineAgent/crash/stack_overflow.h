// Telling a stack overflow from other faults, for the crash report's
// `signal.stack_overflow`.
#ifndef FL_STACK_OVERFLOW_H
#define FL_STACK_OVERFLOW_H

#include <signal.h>
#include <stdint.h>

/// 1 when a fault of `sig` with si_code `code` at `addr`, taken with the
/// stack pointer at `sp`, is most likely a stack overflow: a SIGSEGV for an
/// address not mapped or not accessible (a guard page, or the main stack's
/// growth limit) that lies from a page below the stack pointer to 64 KiB
/// above it, where a live stack is mapped unless it ran out.
/// AddressSanitizer's rule (SignalContext::IsStackOverflow).
/// Async-signal-safe.
int fl_fault_is_stack_overflow(int sig, int code, uintptr_t addr, uintptr_t sp);

#endif
