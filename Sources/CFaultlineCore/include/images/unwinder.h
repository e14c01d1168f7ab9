// Stack unwinding from a signal context. Uses libunwind (nongnu), loaded
// with dlopen(RTLD_LOCAL) at install time so its exported _Unwind_* symbols
// never interpose the C++ runtime's unwinder; falls back to walking frame
// pointers when libunwind is absent.
#ifndef FL_UNWINDER_H
#define FL_UNWINDER_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

/// Loads libunwind. Not async-signal-safe; call at install. Returns 1 when
/// libunwind is usable, 0 when only the frame-pointer fallback is.
int fl_unwinder_init(void);

/// Prepares the calling thread for the fast unwinder (allocates libunwind's
/// per-thread trace cache outside any signal handler). Not async-signal-safe:
/// call at install and at thread start. Threads never warmed use the slower
/// cursor-stepping path, which needs no per-thread state.
void fl_unwinder_warm_thread(void);

/// Sets what runs before and after each libunwind walk of this file's
/// (warm-up, fl_unwind_context, fl_unwind_context_deep): the agent's count
/// of walks, whose last one releases libunwind's memory-validation pipe
/// (unwind_pipe.h), so that no fd is held between unwinds. Both must be
/// async-signal-safe. Install time.
void fl_unwinder_set_walk_hooks(void (*begin)(void), void (*end)(void));

/// Name of the method in use: "libunwind" or "frame_pointer".
const char *fl_unwinder_method(void);

/// Most frames `fl_unwind_context` returns.
#define FL_UNWIND_MAX 256

/// Unwinds from `uc` (a signal handler's context) into `pcs`; returns the
/// number of frames. Frame 0 is the interrupted instruction; the rest are
/// return addresses. Must be called on the thread `uc` belongs to, from its
/// signal handler. Async-signal-safe.
int fl_unwind_context(const ucontext_t *uc, uintptr_t *pcs, int max);

/// The frames of `uc` by its frame-pointer chain alone: no libunwind, no
/// lock, no dl_iterate_phdr; frames built without frame pointers are
/// skipped or end the walk. For a crash handler that could not finish the
/// libunwind walk. Async-signal-safe.
int fl_unwind_context_fp(const ucontext_t *uc, uintptr_t *pcs, int max);

/// Like `fl_unwind_context` but for any number of frames: `pcs` (capacity
/// `cap`, which may be far above FL_UNWIND_MAX) is also the scratch buffer.
/// For a stack overflow, where the outermost frames matter too.
int fl_unwind_context_deep(const ucontext_t *uc, uintptr_t *pcs, int cap);

/// The program counter, stack pointer and frame pointer in `uc`.
uintptr_t fl_context_pc(const ucontext_t *uc);
uintptr_t fl_context_sp(const ucontext_t *uc);
uintptr_t fl_context_fp(const ucontext_t *uc);

#endif
