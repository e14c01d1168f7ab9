// victim-leak's detached-threads command (detached_threads.c).
#ifndef VICTIM_LEAK_DETACHED_THREADS_H
#define VICTIM_LEAK_DETACHED_THREADS_H

/// Starts `n` threads, 10 at a time, each given a 123-byte block as its
/// argument, which it never frees, and returning a 234-byte block, which
/// nobody takes: main detaches each thread after starting it (as
/// LeakSanitizer's create_thread_leak does). Waits until every thread has
/// returned from its start routine (not until it has ended), then returns 0
/// from main: 2n blocks are definitely lost. With `busy`, a forked child
/// spins on another core meanwhile (killed before main returns).
int victim_detached_threads(int n, int busy);

#endif
