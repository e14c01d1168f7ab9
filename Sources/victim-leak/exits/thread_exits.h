// victim-leak commands whose exit check runs after threads ended, or on a
// thread other than main.
#ifndef VICTIM_LEAK_THREAD_EXITS_H
#define VICTIM_LEAK_THREAD_EXITS_H

#include <stddef.h>

/// thread-exits: 4 threads each lose 77 bytes and end; main joins them
/// and returns (their stacks stay mapped in glibc's cache). Returns 0.
int victim_thread_exits(void);

/// main-exits-first: main leaves with pthread_exit; a worker then fills
/// the 100-block global cache, loses 77 bytes and returns, and glibc ends
/// the process with exit(0) from it. Does not return.
void victim_main_exits_first(void) __attribute__((noreturn));

/// small-stack-exit: a thread made with a `stack`-byte stack holds a
/// 123-byte block in its frame, has a thread of its own lose 77 bytes, and
/// calls exit(0): the exit check runs on that small stack. Returns only
/// when the thread could not start (2).
int victim_small_stack_exit(size_t stack);

#endif
