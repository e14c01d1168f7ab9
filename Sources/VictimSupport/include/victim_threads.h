// What several victims need about their own threads.
#ifndef VICTIM_THREADS_H
#define VICTIM_THREADS_H

#ifdef __cplusplus
extern "C" {
#endif

/// 1 once the process's main thread has ended (its /proc entry is a zombie,
/// as after pthread_exit), 0 after 5 s of waiting.
int victim_main_thread_gone(void);

/// Starts thread "lock-holder", parked for good inside a dl_iterate_phdr
/// callback (so holding the dynamic linker's lock), and returns once it is.
void victim_start_loader_lock_holder(void);

/// Starts a thread whose dlopen of libVictimDeepbind.so (beside the
/// executable) holds the loader's lock — the one dlopen and dlsym take —
/// while the library's constructor waits; returns 0 once it does, -1 when
/// the set-up failed.
int victim_start_dlopen_holder(void);

/// Lets that constructor, and so the dlopen, finish; joins the thread.
void victim_release_dlopen_holder(void);

#ifdef __cplusplus
}
#endif
#endif
