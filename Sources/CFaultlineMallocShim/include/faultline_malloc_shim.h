// The quarantining malloc shim (libFaultlineMallocShim.so), loaded with
// LD_PRELOAD. Everything it does is driven by FAULTLINE_* variables (see
// docs/malloc-shim.md); this header declares what other code may call.
#ifndef FAULTLINE_MALLOC_SHIM_H
#define FAULTLINE_MALLOC_SHIM_H

#include <stdint.h>
#include <sys/types.h>

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

/// Runs a leak check now (docs/leaks.md): stops the other threads, scans
/// from the roots, writes a `leak` report (trigger `api`) and returns the
/// number of lost blocks not suppressed, or -1 when leak tracking is off,
/// the shim stepped aside, or /proc/self/maps could not be read (no fd left,
/// not even the reserve Faultline keeps for this; no report then, one line
/// on stderr). Call it from a normal thread, never from a
/// signal handler; look it up with dlsym(RTLD_DEFAULT, "faultline_leak_check").
long faultline_leak_check(void);

/// Fills up to max_stacks allocation stacks with the most live bytes, most
/// first: stack i has live_bytes[i] bytes in live_blocks[i] blocks and
/// depths[i] frames at pcs[i * max_depth ...] (frame 0 is the caller of
/// malloc). Returns the number filled, 0 when allocation records are off.
/// Lock-free and allocation-free (the memory monitor calls it from its
/// thread); totals are exact to within allocations racing with it.
int faultline_shim_top_stacks(uint64_t *live_bytes, uint64_t *live_blocks, uintptr_t *pcs, int *depths, int max_stacks, int max_depth);

/// Lets the crash agent, which looks this symbol up with dlsym at
/// install, share its report directory fd: when `report_dir` (the agent's
/// async-signal-safe accessor) returns an fd on the directory the shim
/// opened, the shim closes its own and writes its reports through that
/// one, so the process holds one fd on the directory instead of two.
/// Returns 1 when shared, 0 otherwise (another directory, or the shim
/// holds none).
int faultline_shim_share_report_dir(int (*report_dir)(void));

/// Lets the crash agent, which looks this symbol up with dlsym at install,
/// share its fd reserve (the one fd kept for reports once the program has
/// used up its own): the shim closes its own reserve and makes its
/// short-lived opens through `openat_high` and closes through `close_high`
/// (the agent's async-signal-safe fl_openat_high and fl_close_high), so
/// the process holds one reserve and the agent's dup2 holds off the
/// shim's opens too. Returns 1.
int faultline_shim_share_fds(int (*openat_high)(int dir, const char *name, int flags, mode_t mode), void (*close_high)(int fd));

#ifdef __cplusplus
}
#endif

#endif
