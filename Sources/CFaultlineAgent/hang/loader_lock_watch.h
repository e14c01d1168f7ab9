// Which threads are inside dl_iterate_phdr. glibc holds the dynamic linker's
// write lock (dl_load_write_lock) from before the first callback until the
// last returns, so a thread parked in a callback blocks every other thread
// that iterates: libunwind does, on the first walk through a function. The
// agent interposes dl_iterate_phdr to count the threads inside, so a walk
// that must not wait can take a lock-free unwinder while another thread is
// in there. (dlopen and library constructors hold the other loader lock,
// dl_load_lock, which dl_iterate_phdr does not take.)
#ifndef FL_LOADER_LOCK_WATCH_H
#define FL_LOADER_LOCK_WATCH_H

#ifdef __cplusplus
extern "C" {
#endif

/// 1 when a thread other than the caller is inside dl_iterate_phdr (so an
/// iteration now would wait for it), else 0. Async-signal-safe. Only calls
/// that reach the agent's interposer are seen: not those of a library
/// loaded with RTLD_DEEPBIND, nor, in the linked build, those from shared
/// libraries that bind to libc's definition directly.
int fl_loader_iteration_elsewhere(void);

#ifdef __cplusplus
}
#endif

#endif
