#include "shim_bare.h"
#include "shim_config.h"
#include "shim_guard.h"
#include "shim_heap.h"
#include "shim_live.h"
#include "shim_report.h"

int shim_bare_state;
int shim_bare_sampling;

int shim_bare_decide(void) {
    // Read once the constructor has settled every option (a guarded range
    // that could not be reserved turns guard pages off first).
    if (!__atomic_load_n(&shim_ready, __ATOMIC_ACQUIRE)) return 0;
    const shim_config *c = &shim_cfg;
    int sampled = c->guard == SHIM_GUARD_SAMPLE;
    int bare = shim_mode == SHIM_MODE_DETECT && c->guard != SHIM_GUARD_ALL && !c->fill_limit && !c->scribble_limit &&
               (!c->quarantine_bytes || !c->quarantine_count) && (!c->stacks || sampled) && !shim_live_on;
    shim_bare_sampling = sampled && shim_guard_lo != 0;
    // The exit check (FAULTLINE_CHECK_AT_EXIT) walks every arena slot
    // reading a header at its start (heap/shim_redzone_exit.c): a headerless
    // block's own bytes, a pointer then a small length, passed as a header
    // overwritten by an underflow about once in 65536 blocks
    // (memory.checks-off-exit-walk). With nothing quarantined and no small
    // block with a header made from here on, the walk has nothing left to
    // find but the few blocks made before this decision.
    if (bare) shim_cfg.check_at_exit = 0;
    __atomic_store_n(&shim_bare_state, bare ? 1 : 2, __ATOMIC_RELAXED);
    return bare;
}

void shim_bare_double_free(const void *p, const char *operation) { shim_report_double_free(p, SHIM_RELEASED, operation); }
