// Reading this process's own memory without the risk of a fault: another
// thread's stack or a lock word may be gone by the time it is read.
#ifndef FL_OWN_MEMORY_H
#define FL_OWN_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/// Copies `len` bytes at `addr` into `out` with process_vm_readv on this
/// very thread. Returns 0, or -1 when any byte is unmapped or the call is
/// refused (a seccomp filter). Async-signal-safe.
int fl_read_own_memory(uintptr_t addr, void *out, size_t len);

/// As fl_read_own_memory, but where the kernel refuses the copy (a seccomp
/// filter: EPERM, ENOSYS) the bytes are read in place. Returns 0, or -1
/// when any byte is unmapped or cannot be read (a page past the end of a
/// truncated file). Async-signal-safe.
int fl_copy_own_memory(uintptr_t addr, void *out, size_t len);

#endif
