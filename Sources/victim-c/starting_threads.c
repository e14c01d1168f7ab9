// victim-c crash-beside-starting-threads: main crashes while two threads
// are held where glibc has every new thread for its first instructions
// (every signal blocked, glibc's own 32 and 33 too). Each lets the stack
// request in once it is pending, as glibc's start_thread does when it sets
// the thread's mask: 'start-asleep' after 30 ms asleep, 'start-running'
// after 300 ms of running (a start-up the scheduler stretched). The crash
// report used to take both for threads that block the sample signal for
// good and list them without a stack. Thread 'lasting-blocker' blocks every
// signal for good (pthread_sigmask), as libdispatch workers do.
//
// crash-beside-stalled-starts: main crashes while threads 'stall-0' …
// 'stall-3' hold that mask and run 1.5 s once their request is pending:
// each is runnable and does not answer, so each may be waited for its full
// 1 s; the thread list's deadline must cut the list short.
#include "victim_startup_mask.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

void victim_null_deref(void);  // main.c

void victim_crash_beside_starting_threads(void) {
    static victim_held_thread held[] = {{"start-asleep", 30, 0, 0}, {"start-running", 0, 300, 0}};
    victim_start_held_threads(held, (int)(sizeof held / sizeof held[0]), 10000);
    victim_start_lasting_blocker();
    victim_null_deref();
}

void victim_crash_beside_stalled_starts(void) {
    static victim_held_thread held[] = {{"stall-0", 0, 1500, 0}, {"stall-1", 0, 1500, 0}, {"stall-2", 0, 1500, 0},
                                             {"stall-3", 0, 1500, 0}};
    victim_start_held_threads(held, (int)(sizeof held / sizeof held[0]), 10000);
    victim_null_deref();
}
