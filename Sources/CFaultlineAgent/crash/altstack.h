// Alternate signal stacks for every thread, so a stack overflow on any
// thread still runs the crash handler. The main thread gets one at install;
// threads created later get one from the pthread_create wrapper; threads
// that already existed get one through a directed signal at install.
#ifndef FL_ALTSTACK_H
#define FL_ALTSTACK_H

#include "solo_call.h"

#include <pthread.h>
#include <stddef.h>

/// Size of each alternate stack. The agent's own handlers use only a few
/// hundred bytes of it (they switch to stacks of their own, stack_switch.h),
/// but a previous handler the crash handler chains to runs here too: the
/// Swift runtime's backtracer loops forever faulting on an 8 KiB one.
#define FL_ALTSTACK_SIZE (256 * 1024)  // a whole number of pages of 4, 16 or 64 KiB

/// Gives the calling thread an alternate signal stack (with a guard page)
/// unless it already has one; one the program set, of any size, is left in
/// force. Not async-signal-safe: mmap is, but callers
/// use it from thread start and install.
int fl_altstack_install_current(void);

/// Turns on installation for new threads (the wrapper is inert before).
void fl_altstack_enable_for_new_threads(void);

/// Gives every other existing thread an alternate stack, by asking each to
/// run sigaltstack on a stack mapped here for it. Returns threads covered.
int fl_altstack_install_existing(void);

/// Starts one of the agent's own threads (stderr drain, watchdog, memory
/// monitor) through the real pthread_create, with an alternate stack but
/// without the program-thread wrapper's heap use: that wrapper frees its
/// trampoline and warms libunwind on the new thread, and both allocate from
/// the program's heap whenever the thread first runs. On a loaded machine
/// that is after the program's own allocations, where a few hundred bytes
/// pin the top of its heap (glibc can no longer trim it). `start` must call
/// fl_cred_mirror_thread_begin once it has set its signal mask (and
/// fl_cred_mirror_thread_end before it returns): a set*id call waits for it.
/// Each is one a solo call may stop and start again (solo_call.h): `solo`
/// is marked running before the thread exists, and not running if it could
/// not be created; its id is recorded before this returns
/// (fl_solo_thread_created), without waiting for the thread to run;
/// `start` calls fl_solo_thread_begin. The thread is
/// detached when `detached`, with a stack of `stack_size` bytes (0: the
/// default). Returns 0 or an error number.
int fl_agent_thread_create(fl_solo_thread *solo, pthread_t *thread, int detached, size_t stack_size, void *(*start)(void *));

#endif
