// Handing a fault to the handler the program had installed before the agent
// (docs/agent.md, "A program that recovers from faults"). The agent stays
// installed and calls that handler itself, as the kernel would deliver to
// it, instead of putting it back and letting the fault happen again: a
// handler that recovers (siglongjmp out of it, or a changed context) would
// otherwise leave the program without the agent's handlers for good.
#ifndef FL_PROGRAM_HANDLER_H
#define FL_PROGRAM_HANDLER_H

#include <signal.h>
#include <stdint.h>

/// 1 when `act` is a handler of the program's (neither SIG_DFL nor SIG_IGN).
int fl_program_handler_is_one(const struct sigaction *act);

/// Calls the program's handler `act` for `sig` as the kernel delivers a
/// signal: with `info` and `uc` (SA_SIGINFO) or the number alone, and the
/// thread's mask set to the interrupted code's plus the handler's `sa_mask`
/// and `sig` (unless SA_NODEFER). The six fault signals the agent keeps
/// open (fault_mask.h) stay open, so a fault inside the handler reaches the
/// agent. The caller's mask is back when it returns. Runs on the caller's
/// stack; `frame` is an address in the caller's
/// frame, recorded so that fl_program_handler_faulted can tell a fault
/// inside the handler from one after the handler jumped out. Stderr
/// capture is given back for the call (the handler may end the process)
/// and taken up again once the last program's handler running on any
/// thread is left and the program goes on: it returns and fl_program_goes_on
/// says so, it jumps out (fl_program_handler_jumping), or a C++ exception
/// is caught or a context set outside it (fl_program_handler_resuming_at).
/// A handler left another way is counted out at its thread's next fault
/// (fl_program_handler_faulted) without taking capture up. A call made
/// inside another's handler (fl_program_handler_nests) is recorded below
/// it; leaving both counts both out. The caller checks there is room
/// (fl_program_handler_nests) when a record is in force. May not return.
/// Async-signal-safe; gives capture back and takes it up with libc calls
/// on the caller's stack, which the program's handler runs on anyway.
void fl_program_handler_call(const struct sigaction *act, int sig, siginfo_t *info, void *uc, uintptr_t frame);

/// 1 when the fault whose context is `uc` happened inside a program's
/// handler that fl_program_handler_call is still running on this thread:
/// its stack pointer lies below the recorded caller frame, on the stack
/// that frame is on. Records left by handlers that went away unseen are
/// cleared first, counted as the program going on. Async-signal-safe.
int fl_program_handler_faulted(const void *uc);

/// After fl_program_handler_faulted said 1: 1 when the kernel would have
/// delivered `sig` to the program's handler there, so it is handed to it
/// inside the running one: the innermost handler's mask does not block it
/// and no handler of `sig` is running on this thread (the agent keeps the
/// fault signals open, so a handler with SA_NODEFER would otherwise recurse
/// into itself until its stack ran out). Async-signal-safe.
int fl_program_handler_nests(int sig);

/// 1 for a hardware fault (SIGSEGV, SIGBUS, SIGILL, SIGFPE the kernel
/// raised, not one sent): returning from its handler re-executes the
/// faulting instruction. SIGTRAP (int3) and SIGSYS do not re-trigger.
/// Async-signal-safe.
int fl_is_hardware_fault(int sig, const siginfo_t *info);

/// 1 when the program goes on after its handler for `sig` returned: after
/// a hardware fault when the disposition is no longer the default (the
/// handler set SIG_DFL to let the fault happen again and end the process),
/// after any other signal but SIGABRT (abort() goes on to end it).
int fl_program_goes_on(int sig, const siginfo_t *info);

/// How many times a thread has left a program's handler called by
/// fl_program_handler_call with the program going on (it jumped out, a
/// C++ exception or a context took it out, it returned and
/// fl_program_goes_on said so, or it was found gone at the thread's next
/// fault). A thread that waits for
/// another's report watches it to learn that the fault reported was
/// recovered from (crash_handler.c, wait_for_claim). Async-signal-safe.
unsigned fl_program_went_on_count(void);

/// Called by the longjmp interposers (handler_jump.c) before they jump to
/// `env`: when the calling thread is inside a program's handler called by
/// fl_program_handler_call and `env` is not within the handler's own
/// frames, the thread is leaving it. Async-signal-safe.
void fl_program_handler_jumping(const void *env);

/// Called by the interposers that see a thread about to run at stack
/// address `sp` (a C++ catch's frame, handler_catch.c; a context set or
/// swapped to, handler_context.c): when the thread is inside a program's
/// handler called by fl_program_handler_call and `sp` is not within the
/// handler's frames, it is leaving it. Async-signal-safe.
void fl_program_handler_resuming_at(uintptr_t sp);

/// 1 when the program's action for `sig` is now the default action or
/// ignore (a program's handler sets it so before it returns to let a fault
/// end the process): a SIG_DFL recorded in place of the crash handler
/// (fault_default.h), or the kernel's disposition. Async-signal-safe.
int fl_disposition_is_default(int sig);

#endif
