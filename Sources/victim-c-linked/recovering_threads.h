// Commands whose faults overlap on several threads (recovering_threads.c).
#ifndef VICTIM_RECOVERING_THREADS_H
#define VICTIM_RECOVERING_THREADS_H

/// Installs the program's SIGSEGV handler for recover-threads,
/// recover-raised-threads, recover-setcontext-threads,
/// recover-unseen-threads, recover-unseen-unpaced-threads and crash-threads (before the agent); returns 1
/// when `command` is one of them.
int victim_threads_prepare(const char *command);
/// recover-threads: 4 threads, released together, each read an unmapped
/// address in each of `count` rounds (default 50), and the handler jumps
/// back each time; exits 0. recover-raised-threads: the same with
/// raise(SIGSEGV) for each probe. recover-setcontext-threads: the handler
/// leaves by setcontext to a context the probe saved with getcontext.
/// recover-unseen-threads: by __builtin_longjmp, which calls no libc.
/// recover-unseen-unpaced-threads: the same, the threads starting the first
/// round together and then probing on without waiting for each other. crash-threads: the same once, not probing, so
/// the handler lets the fault end the process. Returns 0 for other commands.
int victim_threads_run(const char *command, const char *count);

#endif
