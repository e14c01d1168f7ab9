// Throw-site stacks for C++ exceptions. The agent defines `__cxa_throw`,
// `__cxa_rethrow`, `std::current_exception` and `std::set_terminate` with
// default visibility, so the preloaded agent (or an executable that links
// it) interposes the C++ runtime's own: every throw records its stack in a
// small per-thread ring keyed by the exception object, then tail-calls the
// runtime, so the hook leaves no frame of its own for the exception
// unwinder to walk. When an exception is captured into an exception_ptr
// (std::current_exception: std::async, std::promise, thread pools), its
// record is also copied to a small process-wide table, so a rethrow on
// another thread still finds where it was first thrown.
#ifndef FL_CXX_THROW_HOOKS_H
#define FL_CXX_THROW_HOOKS_H

#include "fl_options.h"

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Most frames kept per throw (FAULTLINE_CXX_THROW_FRAMES is capped here).
#define FL_CXX_THROW_FRAMES_MAX 64
#ifdef __cplusplus
static_assert(FL_OPT_HI_CXX_THROW_FRAMES <= FL_CXX_THROW_FRAMES_MAX, "the throw record holds the option's range");
#endif
/// Throws remembered per thread; older ones are overwritten. A nested
/// exception needs one entry per level, plus room for unrelated throws
/// caught in between.
#define FL_CXX_THROW_RING 8
/// Exceptions captured into an exception_ptr remembered process-wide.
#define FL_CXX_ESCAPED 16

/// How a throw record's stack was taken: not at all (no unwinder loaded),
/// with libunwind's cached fast trace, or with libgcc (while another thread
/// was inside dl_iterate_phdr, where libunwind could wait for it).
enum { FL_CXX_UNWINDER_NONE, FL_CXX_UNWINDER_LIBUNWIND, FL_CXX_UNWINDER_LIBGCC };

/// One recorded throw (or rethrow). `pcs[0]` is inside the hook
/// (`__cxa_throw`/`__cxa_rethrow`: the return address of its call to the
/// unwinder), `pcs[1]` the return address into the function that threw,
/// then its callers: every one a return address.
typedef struct fl_cxx_throw_record {
    const void *object;  ///< the thrown object, as `__cxa_throw` received it
    pid_t tid;           ///< thread that threw
    int count;           ///< frames in `pcs`
    int rethrown;        ///< how often `throw;` re-raised it on this thread
    int unwinder;        ///< how `pcs` was taken: an FL_CXX_UNWINDER_* value
    uintptr_t pcs[FL_CXX_THROW_FRAMES_MAX + 2];
} fl_cxx_throw_record;

/// A C++ terminate handler.
typedef void (*fl_terminate_fn)(void);

/// Starts recording: finds the unwinder and keeps `frames` frames per throw (0: the hooks only forward). Not
/// async-signal-safe (install time).
void fl_cxx_hooks_enable(int frames);

/// Stops recording (faultline_uninstall): the interposers stay, as
/// interposed symbols must, and only forward. Async-signal-safe.
void fl_cxx_hooks_stop(void);

/// Gives the C++ runtime back the terminate handler the program set last
/// (before or after fl_cxx_take_terminate) and lets set_terminate through
/// again. Not async-signal-safe.
void fl_cxx_give_back_terminate(void);

/// Stops recording in every thread (the process is about to report and
/// die; the records must stay as they are). Async-signal-safe.
void fl_cxx_hooks_freeze(void);

/// Copies the newest record of a throw of `object` into `out`: from the
/// calling thread's ring, else from the exceptions captured into an
/// exception_ptr on any thread. Returns 1 when found, 0 when not.
int fl_cxx_throw_lookup(const void *object, fl_cxx_throw_record *out);

/// Copies the calling thread's last `throw;` of `object` into `out`.
/// Returns 1 when found, 0 when not.
int fl_cxx_rethrow_lookup(const void *object, fl_cxx_throw_record *out);

/// Name of the unwinder a throw uses when no other thread is inside
/// dl_iterate_phdr: "libunwind", "libgcc" when libunwind is missing, or
/// "none" when neither could be loaded (throws are then recorded without
/// frames).
const char *fl_cxx_hooks_unwinder(void);

/// "libunwind", "libgcc" or "none" for an FL_CXX_UNWINDER_* value.
const char *fl_cxx_unwinder_name(int unwinder);

/// Makes `own` the runtime's terminate handler. Later calls to
/// `std::set_terminate` by the program replace the handler `own` chains to
/// (returned by `fl_cxx_chained_terminate`), not `own` itself. Returns 0, or
/// -1 when the runtime's `std::set_terminate` has not been found
/// (cxx_runtime.h).
int fl_cxx_take_terminate(fl_terminate_fn own);

/// The handler to run after ours: the one installed before the agent, or
/// the one the program set since.
fl_terminate_fn fl_cxx_chained_terminate(void);

#ifdef __cplusplus
}
#endif
#endif
