// Commands whose fault handlers recover (recovering.c).
#ifndef VICTIM_RECOVERING_H
#define VICTIM_RECOVERING_H

/// Installs the program's own handler for `command` (before the agent, so
/// the agent chains to it); returns 1 when `command` is one of these.
int victim_recovering_prepare(const char *command);
/// Runs `command` after install: recovers from faults (`count` probes for
/// recover-many, default 10000), then dereferences NULL for real; or
/// raises SIGTRAP (trap-handled) or SIGABRT (abort-handled) `count` times
/// (default 100) at a handler that returns, and exits 0;
/// recover-then-report-fault recovers from a probe, then abort()s with a
/// crash callback that faults; setcontext-recovered-then-crash recovers
/// from a probe by setcontext, then dereferences NULL
/// (swapcontext-recovered-then-crash: by swapcontext, the handler's context
/// saved and never resumed);
/// abort-in-handler-recovered-then-crash's SIGSEGV handler abort()s for the
/// probe and its SIGABRT handler jumps out of both, then NULL; own-altstack-overflows overflows its stack
/// twice into a handler on its own 16 KiB alternate stack that recovers,
/// then dereferences NULL; default-and-raise dereferences NULL into a
/// handler that sets SIG_DFL with signal() and raises SIGSEGV again.
void victim_recovering_run(const char *command, const char *count);

#endif
