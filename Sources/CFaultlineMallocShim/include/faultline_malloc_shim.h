// The quarantining malloc shim (libFaultlineMallocShim.so), loaded with
// LD_PRELOAD. Everything it does is driven by FAULTLINE_* variables (see
// docs/malloc-shim.md); this header declares what other code may call.
#ifndef FAULTLINE_MALLOC_SHIM_H
#define FAULTLINE_MALLOC_SHIM_H

#ifdef __cplusplus
extern "C" {
#endif

/// Describes a fault for the crash agent, which looks this symbol up with
/// dlsym at install: writes a JSON object (`kind` use_after_free or
/// uninitialized_read, the evidence, the block, its allocation and free
/// stacks) into `buf` and returns its length, or 0 when the fault does not
/// come from freed or uninitialised heap memory. `siginfo` is a siginfo_t,
/// `ucontext` a ucontext_t. Async-signal-safe.
unsigned long faultline_shim_describe_fault(const void *siginfo, const void *ucontext, char *buf, unsigned long cap);

#ifdef __cplusplus
}
#endif

#endif
