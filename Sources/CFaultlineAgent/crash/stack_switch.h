// Running a function on a stack of the agent's own. A signal handler is
// entered on whatever stack the thread has: the agent's alternate stack, one
// the program installed over it (often 8 KiB), or the thread's own stack.
// Work that needs more than that (writing a crash report) runs on a stack
// mapped at install instead.
#ifndef FL_STACK_SWITCH_H
#define FL_STACK_SWITCH_H

#include <stddef.h>

/// A stack mapped by `fl_stack_map`: [lo, hi), with a guard page below lo.
typedef struct {
    char *lo;
    char *hi;
} fl_stack;

/// Maps a stack of at least `size` bytes (rounded up to pages) with an
/// inaccessible guard page below it, so running off its end faults instead
/// of corrupting the mapping beneath. Not async-signal-safe in spirit (call
/// at install). Returns 0, or -1 with errno set.
int fl_stack_map(fl_stack *stack, size_t size);

/// Calls `fn(arg)` with the stack pointer at `top` (rounded down to 16
/// bytes), then returns on the caller's stack. The frame it leaves carries
/// call-frame information that leads back to the caller, so an unwinder
/// started on the new stack (libunwind's unw_backtrace inside `fn`) walks on
/// into the caller's frames, the kernel's signal frame and the interrupted
/// code. Async-signal-safe (a few instructions; no system call, so the
/// thread's sigaltstack setting is left alone). x86-64 and aarch64 only.
void fl_call_on_stack(void (*fn)(void *), void *arg, void *top);

/// Turns the calling thread's alternate signal stack off, for the rest of
/// a signal handler that has moved to a stack of the agent's: the kernel
/// puts the setting saved in the signal frame (uc_stack) back at
/// sigreturn. Until then a signal whose handler has SA_ONSTACK nests below
/// the stack pointer, where it would otherwise land at the alternate
/// stack's top, over the handler's frames: glibc's SIGSETXID has SA_ONSTACK,
/// and glibc's pthread_sigmask, which libunwind calls around its locks,
/// unblocks it whatever the handler's mask says (a thread sampled while
/// another called seteuid died of SIGSEGV at address 0). Call on the
/// agent's stack only: the kernel refuses while the thread is on its
/// alternate stack, and outside a handler nothing would turn it back on.
/// Raw system call: async-signal-safe.
void fl_altstack_suspend(void);

/// Puts back the alternate stack setting saved in a handler's `uc`, before
/// the handler raises a signal again from its own frames (that signal's
/// handler may leave by longjmp, and no sigreturn would restore it). Raw
/// system call: async-signal-safe.
void fl_altstack_resume(const void *uc);

#endif
