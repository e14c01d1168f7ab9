// The mask a handler that leaves its alternate stack runs under.
//
// The crash and sample handlers are entered on the thread's alternate stack
// and move to stacks of the agent's (stack_switch.h). A signal whose handler
// has SA_ONSTACK arriving then finds the thread off its alternate stack, and
// the kernel puts its frame at that stack's top: over the interrupted
// handler's frames. So those handlers block every signal but the fault
// signals while they run. sigfillset leaves out glibc's internal signals,
// though (SIGCANCEL and SIGSETXID, 32 and 33), and sigaddset refuses them;
// SIGSETXID's handler has SA_ONSTACK, and glibc sends it to every thread at
// each setuid, seteuid, setgroups… of any thread. Blocked from the handler's
// first instruction, it waits until the handler has turned the alternate
// stack off (fl_altstack_suspend), which glibc's pthread_sigmask, called by
// libunwind, may unblock it after.
#ifndef FL_HANDLER_MASK_H
#define FL_HANDLER_MASK_H

#include <signal.h>

/// Fills `set` with every signal, glibc's internal ones included (which
/// sigfillset leaves out). For a handler's sa_mask: the kernel blocks them
/// while the handler runs.
void fl_handler_mask_fill(sigset_t *set);

#endif
