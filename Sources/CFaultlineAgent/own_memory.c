#include "own_memory.h"
#include "sigsafe.h"

#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

int fl_read_own_memory(uintptr_t addr, void *out, size_t len) {
    struct iovec local = {out, len};
    struct iovec remote = {(void *)addr, len};
    // The counts and flags are unsigned long in the kernel: pass them as
    // such (a variadic int leaves the upper half of the register undefined).
    // The calling thread's id, not the pid: once the main thread has called
    // pthread_exit the leader is a zombie without memory and every read by
    // pid fails (hang.main-gone-deadlock: no edges, no cycle).
    return syscall(SYS_process_vm_readv, (long)fl_gettid(), &local, 1ul, &remote, 1ul, 0ul) == (long)len ? 0 : -1;
}
