// Stacks of threads that have ended (or are ending): not roots of a leak
// scan, as under valgrind. glibc keeps an ended thread's stack mapped for
// its next thread, and the thread's descriptor at the top of that mapping
// keeps the thread's argument and its result (pthread_create's `arg`, the
// start routine's return value) after a detached thread is gone; a thread
// that has not finished ending has every signal blocked, so it is never
// parked and its whole stack was read. Either way the blocks it lost were
// "still reachable". docs/leaks.md, "Threads that have ended".
#ifndef SHIM_LEAK_ENDED_H
#define SHIM_LEAK_ENDED_H

#include <stdint.h>

/// The calling thread is ending (its key destructors run): remembers its
/// stack [lo, hi), glibc's whole stack block above the guard (the
/// descriptor and static TLS included), and its thread pointer `tp`. Not
/// for the main thread.
void shim_leak_thread_ended(uintptr_t lo, uintptr_t hi, uintptr_t tp, uint32_t tid);

/// One remembered stack.
typedef struct leak_ended_stack { uintptr_t lo, hi, tp; uint32_t tid; } leak_ended_stack;

/// The stacks remembered so far (valid while the world is stopped; a
/// later exit may add one).
int shim_leak_ended_stacks(const leak_ended_stack **stacks);

#endif
