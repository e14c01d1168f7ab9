// victim-leak's asleep-at-exit, freeing-at-exit and ending-thread-tls commands (busy_at_exit.c):
// threads still at work when main returns, as the exit's leak check finds them.
#ifndef VICTIM_LEAK_BUSY_AT_EXIT_H
#define VICTIM_LEAK_BUSY_AT_EXIT_H

/// Three threads asleep as main returns, in usleep (nanosleep without the
/// time left), sleep (with it) and poll without a timeout, each ending the
/// process with status 3, 4 or 5 if its sleep ends within 20 s; main loses
/// one 48-byte block and returns 0 after 100 ms. Exits 0 when no sleep was
/// cut short (LeakSanitizer's libdl_deadlock watchdog, woken by the stop
/// signal, called exit(1)).
int victim_asleep_at_exit(void);

/// A thread allocating and freeing blocks of 0 to 10 KB as fast as it can
/// while main loses one 48-byte block and returns: headers are being
/// written while the exit check reads them. Exits 0.
int victim_freeing_at_exit(void);

/// A detached thread whose only pointer to a 100-byte block is a TLS
/// variable, still in its key destructor (asleep) as main returns; main
/// loses one 48-byte block. The thread's block is reachable: its TLS is
/// live until the thread ends (LeakSanitizer's detached_thread_dlsym).
int victim_ending_thread_tls(void);

#endif
