// Reading memory that may not be mapped, without faulting: the kernel
// copies it (process_vm_readv on ourselves, or write() into a pipe when
// that syscall is filtered) and says EFAULT instead of raising SIGSEGV.
// Async-signal-safe.
#ifndef SHIM_SAFEREAD_H
#define SHIM_SAFEREAD_H

#include <stddef.h>

/// Checks whether process_vm_readv works, and creates the fallback pipe
/// only when it does not. Install time.
void shim_saferead_init(void);
/// Refreshes the cached pid (after fork, in the child).
void shim_saferead_after_fork(void);
/// Copies `n` bytes from `addr` into `out`. Returns 0, or -1 when any of
/// them is unreadable.
int shim_safe_read(const void *addr, void *out, size_t n);

#endif
