// What several victims need about their own threads.
#ifndef VICTIM_THREADS_H
#define VICTIM_THREADS_H

/// 1 once the process's main thread has ended (its /proc entry is a zombie,
/// as after pthread_exit), 0 after 5 s of waiting.
int victim_main_thread_gone(void);

/// Starts thread "lock-holder", parked for good inside a dl_iterate_phdr
/// callback (so holding the dynamic linker's lock), and returns once it is.
void victim_start_loader_lock_holder(void);

#endif
