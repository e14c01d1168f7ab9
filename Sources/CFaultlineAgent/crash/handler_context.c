// setcontext and swapcontext, interposed only to see a program's fault
// handler that the agent called (program_handler.h) leave by switching to
// another context: a probe's or a coroutine runtime's recovery to a context
// saved with getcontext. The handler never returns then, so without this
// the agent could not tell the program lived on: a thread waiting on the
// handled fault's report waited for a sign that never came, and stderr
// capture stayed off. Every call is passed on unchanged; outside such a
// handler this costs one thread-local read. Async-signal-safe.
#include "interpose_next.h"
#include "program_handler.h"
#include "unwinder.h"

#include <ucontext.h>

typedef int (*setcontext_fn)(const ucontext_t *);
typedef int (*swapcontext_fn)(ucontext_t *, const ucontext_t *);

FL_NEXT_VAR(setcontext)
FL_NEXT_VAR(swapcontext)
#define real(name, type) ((type)(next_##name ? next_##name : dlsym(RTLD_NEXT, #name)))

/// Notes a switch out of a program's handler, then sets `ucp`.
FL_EXPORT int setcontext(const ucontext_t *ucp) {
    fl_program_handler_resuming_at(fl_context_sp(ucp));
    return real(setcontext, setcontext_fn)(ucp);
}

/// Notes a switch out of a program's handler, then swaps to `ucp`. A
/// handler that is swapped back to later and returns is not counted again.
FL_EXPORT int swapcontext(ucontext_t *oucp, const ucontext_t *ucp) {
    fl_program_handler_resuming_at(fl_context_sp(ucp));
    return real(swapcontext, swapcontext_fn)(oucp, ucp);
}
