#include "exe_match.h"
#include "tool_log.h"
#include "shim_config.h"
#include "shim_config_signal.h"
#include "env_option.h"

#include <signal.h>
#include <string.h>
#include "sigsafe.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(FL_OPT_HI_MAX_FRAMES <= SHIM_MAX_REPORT_FRAMES, "report stacks hold the option's range");
_Static_assert(FL_OPT_HI_MALLOC_STACK_DEPTH <= SHIM_MAX_STACK_DEPTH, "block stacks hold the option's range");

shim_config shim_cfg = {
    .detect = 1,
    .quarantine_bytes = FL_OPT_DEFAULT_QUARANTINE_BYTES,
    .quarantine_big_bytes = FL_OPT_DEFAULT_QUARANTINE_BIG_BYTES,
    .quarantine_count = FL_OPT_DEFAULT_QUARANTINE_COUNT,
    .scribble_limit = FL_OPT_DEFAULT_SCRIBBLE_LIMIT,
    .scribble_sample = FL_OPT_DEFAULT_SCRIBBLE_SAMPLE,
    .fill_limit = FL_OPT_DEFAULT_FILL_LIMIT,
    .stacks = FL_OPT_DEFAULT_MALLOC_STACKS,
    .stack_depth = FL_OPT_DEFAULT_MALLOC_STACK_DEPTH,
    .unwinder = SHIM_UNWIND_AUTO,
    .depot_bytes = FL_OPT_DEFAULT_STACK_DEPOT_BYTES,
    .halt_on_error = FL_OPT_DEFAULT_HALT_ON_ERROR,
    .exit_code = FL_OPT_DEFAULT_ERROR_EXITCODE,
    .check_at_exit = FL_OPT_DEFAULT_CHECK_AT_EXIT,
    .alloc_dealloc_mismatch = FL_OPT_DEFAULT_ALLOC_DEALLOC_MISMATCH,
    .new_delete_type_mismatch = FL_OPT_DEFAULT_NEW_DELETE_TYPE_MISMATCH,
    .max_frames = FL_OPT_DEFAULT_MAX_FRAMES,
    .max_reports = FL_OPT_DEFAULT_MAX_HEAP_REPORTS,
    .stats = FL_OPT_DEFAULT_SHIM_STATS,
    .leak_tracking = FL_OPT_DEFAULT_LEAK_TRACKING,
    .leak_check_at_exit = 0,
    .leak_show_reachable = FL_OPT_DEFAULT_LEAK_SHOW_REACHABLE,
    .gen_suppressions = FL_OPT_DEFAULT_GEN_SUPPRESSIONS,
    .leak_signal = 0,       // SIGRTMIN + 11, set in shim_config_load
    .leak_stop_signal = 0,  // SIGRTMIN + 10
    .leak_stop_timeout_ms = FL_OPT_DEFAULT_LEAK_STOP_TIMEOUT_MS,
    .leak_max_groups = FL_OPT_DEFAULT_LEAK_MAX_GROUPS,
    .leak_growth_ms = FL_OPT_DEFAULT_LEAK_GROWTH_MS,
    .leak_growth_snapshots = FL_OPT_DEFAULT_LEAK_GROWTH_SNAPSHOTS,
    .leak_growth_min_bytes = FL_OPT_DEFAULT_LEAK_GROWTH_MIN_BYTES,
    .guard_slots = FL_OPT_DEFAULT_GUARD_SLOTS,
    .guard_align = FL_OPT_DEFAULT_GUARD_ALIGN,
};

// A value longer than this is shown cut, with "...": the line must keep
// room for what is wrong with it and its newline (a 700-byte value filled
// the line, which then said nothing about it and ran into the next one).
#define WARN_VALUE_MAX 96

void shim_config_warn(const char *name, const char *value, const char *what) {
    char line[512];
    size_t n = fl_strlcpy(line, "faultline: ", sizeof line - 1);
    n += fl_strlcpy(line + n, name, sizeof line - 1 - n);
    n += fl_strlcpy(line + n, "=", sizeof line - 1 - n);
    n += fl_strlcpy_cut(line + n, value, sizeof line - 1 - n, WARN_VALUE_MAX);
    n += fl_strlcpy(line + n, " ", sizeof line - 1 - n);
    n += fl_strlcpy(line + n, what, sizeof line - 1 - n);
    line[n++] = '\n';  // always: sizeof line - 1 kept room for it
    fl_log_write(line, n);
    fl_option_said(name);  // `value` is not used after this
}

// "NAME=VALUE is not a number from LO to HI<note>; using the default".
static void warn_range(const char *name, const char *value, uint64_t lo, uint64_t hi, const char *note) {
    char what[160];
    size_t k = fl_strlcpy(what, "is not a number from ", sizeof what);
    k += fl_fmt_u64(what + k, lo);
    k += fl_strlcpy(what + k, " to ", sizeof what - k);
    k += fl_fmt_u64(what + k, hi);
    k += fl_strlcpy(what + k, note, sizeof what - k);
    fl_strlcpy(what + k, "; using the default", sizeof what - k);
    shim_config_warn(name, value, what);
}

static void env_size(fl_option_id id, size_t *field) {
    const char *v = fl_option_value(id);
    long long n;
    int r = fl_option_number(id, &n);
    if (r < 0) warn_range(fl_option_at(id)->name, v, (uint64_t)fl_option_lo(id), (uint64_t)fl_option_hi(id), " (K, M and G multiply by 1024, 1024^2, 1024^3)");
    else if (r > 0) *field = (size_t)n;
}

static void env_int(fl_option_id id, int *field) {
    const char *v = fl_option_value(id);
    long long n;
    int r = fl_option_number(id, &n);
    if (r < 0) warn_range(fl_option_at(id)->name, v, (uint64_t)fl_option_lo(id), (uint64_t)fl_option_hi(id), "");
    else if (r > 0) *field = (int)n;
}

// Detection is on when FAULTLINE_DETECTORS is unset, "all", or names
// use_after_free or shim; the agent reads the same list for its detectors.
static int detectors_include(const char *list, const char *a, const char *b, const char *c) {
    if (!list || !*list || fl_streq(list, "all")) return 1;
    const char *p = list;
    while (*p) {
        const char *e = p;
        while (*e && *e != ',') e++;
        size_t len = (size_t)(e - p);
        const char *names[3] = {a, b, c};
        for (int i = 0; i < 3; i++)
            if (names[i] && len == strlen(names[i]) && strncmp(p, names[i], len) == 0) return 1;
        p = *e ? e + 1 : e;
    }
    return 0;
}

static int detectors_include_shim(const char *list) {
    return detectors_include(list, "leaks", "use_after_free", "shim");
}

// FAULTLINE_DETECTORS, or NULL (all) after one line on stderr when it names
// a detector that does not exist: a typo such as use-after-free would
// otherwise switch every check off without a word. The agent reads the
// same list and also falls back to all.
static const char *detectors_list(void) {
    const char *list = fl_option_value(FL_OPT_DETECTORS);
    if (!fl_detector_list_unknown(list, 0, 0)) return list;
    shim_config_warn("FAULTLINE_DETECTORS", list, "names an unknown detector (known: crash, cxx_exception, hang, memory, cpu, fds, threads, launch, use_after_free, leaks, shim, all, none); Faultline runs as if it were unset (every detector on)");
    return 0;
}

// FAULTLINE_GUARD=all or sample:N (N from 1 to 2^31), FAULTLINE_GUARD_SIDE,
// FAULTLINE_GUARD_ALIGN, FAULTLINE_GUARD_SLOTS. Sampling takes every other block off the checks
// (GWP-ASan's design): no fill, scribble or quarantine for them.
static void load_guard(shim_config *c) {
    const char *g = fl_option_value(FL_OPT_GUARD);
    if (g && *g && !fl_streq(g, "off")) {
        uint64_t n = 0;
        const char *d = g + 7;
        int digits = fl_startswith(g, "sample:") && *d;
        for (; digits && *d; d++) {
            if (*d < '0' || *d > '9' || n > (1ull << 31)) { digits = 0; break; }
            n = n * 10 + (uint64_t)(*d - '0');
        }
        if (fl_streq(g, "all")) c->guard = 1;
        else if (digits && n >= 1 && n <= (1ull << 31)) {
            c->guard = 2;
            c->guard_sample = (size_t)n;
        } else {
            shim_config_warn("FAULTLINE_GUARD", g, "is not one of off, all, sample:N (N from 1 to 2147483648); guard pages are off");
        }
    }
    const char *side = fl_option_value(FL_OPT_GUARD_SIDE);
    if (side && *side) {
        if (fl_streq(side, "left")) c->guard_left = 1;
        else if (!fl_streq(side, "right")) shim_config_warn("FAULTLINE_GUARD_SIDE", side, "is not one of right, left; using right");
    }
    env_size(FL_OPT_GUARD_SLOTS, &c->guard_slots);
    env_int(FL_OPT_GUARD_ALIGN, &c->guard_align);
    if (c->guard_align & (c->guard_align - 1)) {
        shim_config_warn("FAULTLINE_GUARD_ALIGN", fl_option_value(FL_OPT_GUARD_ALIGN), "is not one of 1, 2, 4, 8, 16; using 16");
        c->guard_align = 16;
    }
    if (c->guard == 2) {
        c->fill_limit = 0;
        c->scribble_limit = 0;
        c->quarantine_bytes = 0;
    }
}

void shim_config_load(void) {
    shim_config *c = &shim_cfg;
    const char *detectors = detectors_list();
    c->detect = detectors_include_shim(detectors);
    // A program the user keeps Faultline out of (--trace-children-skip).
    if (fl_exe_matches_env("FAULTLINE_TRACE_CHILDREN_SKIP", 0)) c->detect = 0;
    env_size(FL_OPT_QUARANTINE_BYTES, &c->quarantine_bytes);
    env_size(FL_OPT_QUARANTINE_BIG_BYTES, &c->quarantine_big_bytes);
    env_size(FL_OPT_QUARANTINE_COUNT, &c->quarantine_count);
    env_size(FL_OPT_SCRIBBLE_LIMIT, &c->scribble_limit);
    env_int(FL_OPT_SCRIBBLE_SAMPLE, &c->scribble_sample);
    env_size(FL_OPT_FILL_LIMIT, &c->fill_limit);
    env_int(FL_OPT_MALLOC_STACKS, &c->stacks);
    env_int(FL_OPT_MALLOC_STACK_DEPTH, &c->stack_depth);
    env_size(FL_OPT_STACK_DEPOT_BYTES, &c->depot_bytes);
    env_int(FL_OPT_HALT_ON_ERROR, &c->halt_on_error);
    env_int(FL_OPT_ERROR_EXITCODE, &c->exit_code);
    env_int(FL_OPT_CHECK_AT_EXIT, &c->check_at_exit);
    env_int(FL_OPT_ALLOC_DEALLOC_MISMATCH, &c->alloc_dealloc_mismatch);
    env_int(FL_OPT_NEW_DELETE_TYPE_MISMATCH, &c->new_delete_type_mismatch);
    env_int(FL_OPT_MAX_FRAMES, &c->max_frames);
    env_int(FL_OPT_MAX_HEAP_REPORTS, &c->max_reports);
    env_int(FL_OPT_SHIM_STATS, &c->stats);
    c->leak_check_at_exit = detectors_include(detectors, "leaks", 0, 0);
    c->leak_signal = SIGRTMIN + 11;
    c->leak_stop_signal = SIGRTMIN + 10;
    // Live-block records cost two list updates and a depot update per
    // malloc/free pair: keep them only for the detectors that read them
    // (leaks, and the memory monitor's top allocation stacks).
    c->leak_tracking = detectors_include(detectors, "leaks", "memory", 0);
    env_int(FL_OPT_LEAK_TRACKING, &c->leak_tracking);
    env_int(FL_OPT_LEAK_CHECK_AT_EXIT, &c->leak_check_at_exit);
    env_int(FL_OPT_LEAK_SHOW_REACHABLE, &c->leak_show_reachable);
    env_int(FL_OPT_GEN_SUPPRESSIONS, &c->gen_suppressions);
    // 0 turns the on-demand signal off; otherwise any signal but the fault
    // signals and the uncatchable ones.
    shim_env_signal(FL_OPT_LEAK_SIGNAL, &c->leak_signal, 1);
    shim_env_signal(FL_OPT_LEAK_STOP_SIGNAL, &c->leak_stop_signal, 0);
    env_int(FL_OPT_LEAK_STOP_TIMEOUT_MS, &c->leak_stop_timeout_ms);
    env_int(FL_OPT_LEAK_MAX_GROUPS, &c->leak_max_groups);
    env_int(FL_OPT_LEAK_GROWTH_MS, &c->leak_growth_ms);
    env_int(FL_OPT_LEAK_GROWTH_SNAPSHOTS, &c->leak_growth_snapshots);
    env_size(FL_OPT_LEAK_GROWTH_MIN_BYTES, &c->leak_growth_min_bytes);
    // Programs whose leaks are not the user's (`faultline exec` names the
    // system's tools: sed, sh, cmp run by a test suite): no leak tracking
    // or check; their heap errors are still reported.
    if (fl_exe_matches_env("FAULTLINE_LEAK_CHECK_SKIP", 0)) c->leak_tracking = 0;
    if (!c->leak_tracking) { c->leak_check_at_exit = 0; c->leak_growth_ms = 0; }
    const char *sup = fl_option_value(FL_OPT_SUPPRESSIONS);
    // Cut short, the path would name another file: refused instead.
    if (sup && *sup && fl_strlen(sup) >= sizeof c->suppressions)
        shim_config_warn("FAULTLINE_SUPPRESSIONS", sup, "is a path of 4096 bytes or more; nothing is suppressed (use a shorter path)");
    else if (sup && *sup) fl_strlcpy(c->suppressions, sup, sizeof c->suppressions);
    // The old name, for leaks only: said, not read (one name for one file).
    const char *old = fl_option_value(FL_OPT_LEAK_SUPPRESSIONS);
    if (old && *old)
        shim_config_warn("FAULTLINE_LEAK_SUPPRESSIONS", old, "is no longer read: set FAULTLINE_SUPPRESSIONS=FILE instead (the same format, for leaks and heap errors)");
    load_guard(c);
    const char *u = fl_option_value(FL_OPT_MALLOC_UNWINDER);
    if (u && *u) {
        if (fl_streq(u, "fp")) c->unwinder = SHIM_UNWIND_FP;
        else if (fl_streq(u, "libunwind")) c->unwinder = SHIM_UNWIND_LIBUNWIND;
        else if (fl_streq(u, "auto")) c->unwinder = SHIM_UNWIND_AUTO;
        else shim_config_warn("FAULTLINE_MALLOC_UNWINDER", u, "is not one of auto, fp, libunwind; using the default");
    }
}
