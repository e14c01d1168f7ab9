// Alternate signal stacks for every thread, so a stack overflow on any
// thread still runs the crash handler. The main thread gets one at install;
// threads created later get one from the pthread_create wrapper; threads
// that already existed get one through a directed signal at install.
#ifndef FL_ALTSTACK_H
#define FL_ALTSTACK_H

#include <stddef.h>

/// Size of each alternate stack (libunwind needs a few pages of its own).
#define FL_ALTSTACK_SIZE (256 * 1024)

/// Gives the calling thread an alternate signal stack (with a guard page)
/// unless it already has one. Not async-signal-safe: mmap is, but callers
/// use it from thread start and install.
int fl_altstack_install_current(void);

/// Turns on installation for new threads (the wrapper is inert before).
void fl_altstack_enable_for_new_threads(void);

/// Gives every other existing thread an alternate stack, by asking each to
/// run sigaltstack on a stack mapped here for it. Returns threads covered.
int fl_altstack_install_existing(void);

#endif
