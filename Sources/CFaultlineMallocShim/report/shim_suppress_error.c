// Matching a heap error against the suppressions, on the thread that made
// it, before anything of its report is written: inside free, delete or
// realloc, or in the quarantine's release or the exit check (never in a
// signal handler). No lock of the shim's is held here: the quarantine's is
// dropped before blocks are released and checked, the report's is taken
// only once the error is known to be reported, and the symbol table's only
// inside shim_symbolize (see there for the loader's lock).
#include "shim_suppress.h"
#include "shim_suppress_gen.h"
#include "cancel_off.h"
#include "shim_config.h"
#include "shim_depot.h"
#include "shim_thread.h"
#include "unwinder.h"

#include <errno.h>
#include <ucontext.h>

// The calling thread's stack from its first frame outside the shim (the
// call into free, delete, realloc), as the report's crashed_thread has it.
static int current_stack(uintptr_t *pcs, int max) {
    ucontext_t uc;
    getcontext(&uc);
    int n = fl_unwind_context(&uc, pcs, max);
    const char *fn, *image;
    uintptr_t self, base;
    shim_symbolize((uintptr_t)&current_stack + 1, &fn, &image, &self);
    int skip = 0;
    while (skip < n - 1 && (shim_symbolize(pcs[skip], &fn, &image, &base), base == self)) skip++;
    for (int i = skip; i < n; i++) pcs[i - skip] = pcs[i];
    return n - skip;
}

// The first suppression of `kind` that a frame of depot stack `id` matches.
static int match_stack(fl_supp_kind kind, uint32_t id) {
    const uintptr_t *pcs;
    int n = id ? shim_depot_get(id, &pcs) : 0;
    return n > 0 ? shim_suppress_match(kind, pcs, n) : -1;
}

int shim_suppress_error(fl_supp_kind kind, int current, uint32_t alloc_stack, uint32_t free_stack) {
    if (__builtin_expect(!shim_suppress_wanted(kind) && !shim_cfg.gen_suppressions, 1)) return 0;
    int saved = errno, cancel = fl_cancel_off();  // open(2) is a cancellation point
    // The demanglers' blocks get no stacks, and an error they would make
    // is neither matched nor reported (shim_demangle.c).
    shim_self.depth++;
    int m = -1;
    uintptr_t pcs[SHIM_MAX_REPORT_FRAMES];
    int n = 0;
    if (current) {
        n = current_stack(pcs, shim_cfg.max_frames < SHIM_MAX_REPORT_FRAMES ? shim_cfg.max_frames : SHIM_MAX_REPORT_FRAMES);
        m = shim_suppress_match(kind, pcs, n);
    }
    if (m < 0) m = match_stack(kind, alloc_stack);
    if (m < 0) m = match_stack(kind, free_stack);
    if (m < 0 && shim_cfg.gen_suppressions) {
        // Named by the erring call, else (write_after_free, found later) by
        // where the block was freed, else allocated.
        const uintptr_t *stored = 0;
        uint32_t id = free_stack ? free_stack : alloc_stack;
        int k = n ? n : id ? shim_depot_get(id, &stored) : 0;
        shim_suppress_gen_error(kind, n ? pcs : stored, k);
    }
    shim_self.depth--;
    fl_cancel_restore(cancel);
    errno = saved;
    if (m < 0) return 0;
    shim_suppress_count_hit(m);
    return 1;
}
