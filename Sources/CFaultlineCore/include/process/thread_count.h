// Keeps Faultline's own background threads (the malloc shim's leak helper,
// the agent's stderr drain, hang watchdog and memory monitor) out of the
// count glibc uses to end a process whose last thread has ended.
//
// glibc calls exit(0) when the last thread counted in its __nptl_nthreads
// ends (a main thread that called pthread_exit, then its workers returned).
// Threads started through pthread_create are counted; counted, the helpers
// kept such a process alive forever once the program's threads were gone,
// and since they block every signal, not even SIGTERM ended it.
#ifndef FL_THREAD_COUNT_H
#define FL_THREAD_COUNT_H

/// Takes one just-created background thread out of glibc's thread count.
/// Call in the creating thread, right after pthread_create succeeded (so a
/// program thread ending meanwhile still sees the count it expects). Does
/// nothing where glibc's counter cannot be found.
void fl_thread_uncount(void);

/// Puts the calling background thread back into the count just before it
/// returns (glibc takes it out again as it ends), unless no program thread
/// is counted any more: the process is exiting then, and a count that
/// reached 0 again would make glibc call exit a second time.
void fl_thread_recount(void);

/// The program's threads as glibc counts them (Faultline's own left out,
/// above); -1 where glibc's counter cannot be found.
int fl_program_threads(void);

#endif
