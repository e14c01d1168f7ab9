// The checks at exit run on whatever stack called exit: a thread made with
// a 16 or 32 KiB stack (pthread_attr_setstacksize), a coroutine or a fiber.
// They need far more (the leak check about 100 KiB, a report several KiB),
// so where that stack is short they run on a fresh stack of their own.
#ifndef SHIM_OWN_STACK_H
#define SHIM_OWN_STACK_H

/// When the calling thread has less than 256 KiB of stack left below it, or
/// is not on its own stack, or its bounds are not known yet: runs `fn(arg)`
/// on a fresh 1 MiB stack (swapcontext), stores its result in `*result`
/// and returns 1. Returns 0 when the caller's stack is deep enough, or no
/// stack could be made: the caller then runs `fn` itself. While `fn` runs,
/// `shim_self.leak_caller_sp` says where the caller's stack ends (the leak
/// scan reads it from there up). Not async-signal-safe (mmap, the context
/// calls); allocation-free.
int shim_own_stack_run(long (*fn)(void *arg), void *arg, long *result);

#endif
