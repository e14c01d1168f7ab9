#include "shim_config.h"
#include "shim_config_signal.h"
#include "env_option.h"

#include <signal.h>
#include <string.h>
#include "sigsafe.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

shim_config shim_cfg = {
    .detect = 1,
    .quarantine_bytes = 16u << 20,
    .quarantine_count = 1u << 16,
    .scribble_limit = 4096,
    .fill_limit = 4096,
    .stacks = 1,
    .stack_depth = 16,
    .unwinder = SHIM_UNWIND_AUTO,
    .depot_bytes = 64u << 20,
    .halt_on_error = 1,
    .exit_code = 23,
    .check_at_exit = 1,
    .alloc_dealloc_mismatch = 1,
    .new_delete_type_mismatch = 1,
    .max_frames = 128,
    .max_reports = 100,
    .stats = 0,
    .leak_tracking = 1,
    .leak_check_at_exit = 0,
    .leak_show_reachable = 0,
    .leak_signal = 0,       // SIGRTMIN + 11, set in shim_config_load
    .leak_stop_signal = 0,  // SIGRTMIN + 10
    .leak_stop_timeout_ms = 500,
    .leak_max_groups = 50,
    .leak_growth_ms = 0,
    .leak_growth_snapshots = 5,
    .leak_growth_min_bytes = 1024,
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
    fl_write_all(2, line, n);
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

// Decimal digits at `s` into `*out`, `*end` after them. Returns -1 when
// there are none or the number does not fit in 64 bits (fl_parse_dec
// wraps: 18446744073709551617 read as 1, a quarantine of one byte).
static int parse_u64(const char *s, uint64_t *out, const char **end) {
    if (*s < '0' || *s > '9') return -1;
    uint64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++)
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(*s - '0'), &v)) return -1;
    *out = v;
    *end = s;
    return 0;
}

// "64M", "1G", "4096", "16K": bytes. Returns 0 on success.
static int parse_size(const char *s, uint64_t *out) {
    const char *end;
    uint64_t v;
    if (parse_u64(s, &v, &end) != 0) return -1;
    uint64_t mul = 1;
    if (*end == 'K' || *end == 'k') { mul = 1ull << 10; end++; }
    else if (*end == 'M' || *end == 'm') { mul = 1ull << 20; end++; }
    else if (*end == 'G' || *end == 'g') { mul = 1ull << 30; end++; }
    if (*end == 'B' || *end == 'b') end++;
    if (*end) return -1;
    if (v > UINT64_MAX / mul) return -1;
    *out = v * mul;
    return 0;
}

static void env_size(const char *name, size_t *field, uint64_t lo, uint64_t hi) {
    const char *v = getenv(name);
    if (!v || !*v) return;
    uint64_t n;
    if (parse_size(v, &n) != 0 || n < lo || n > hi) {
        warn_range(name, v, lo, hi, " (K, M and G multiply by 1024, 1024^2, 1024^3)");
        return;
    }
    *field = (size_t)n;
}

static void env_int(const char *name, int *field, int lo, int hi) {
    const char *v = getenv(name);
    if (!v || !*v) return;
    const char *end;
    uint64_t n;
    if (parse_u64(v, &n, &end) != 0 || *end || n < (uint64_t)lo || n > (uint64_t)hi) {
        warn_range(name, v, (uint64_t)lo, (uint64_t)hi, "");
        return;
    }
    *field = (int)n;
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
    const char *list = getenv("FAULTLINE_DETECTORS");
    if (!fl_detector_list_unknown(list, 0, 0)) return list;
    shim_config_warn("FAULTLINE_DETECTORS", list, "names an unknown detector (known: crash, cxx_exception, hang, memory, use_after_free, leaks, shim, all, none); Faultline runs as if it were unset (every detector on)");
    return 0;
}

void shim_config_load(void) {
    shim_config *c = &shim_cfg;
    const char *detectors = detectors_list();
    c->detect = detectors_include_shim(detectors);
    env_size("FAULTLINE_QUARANTINE_BYTES", &c->quarantine_bytes, 0, 1ull << 40);
    env_size("FAULTLINE_QUARANTINE_COUNT", &c->quarantine_count, 0, 1ull << 28);
    env_size("FAULTLINE_SCRIBBLE_LIMIT", &c->scribble_limit, 0, 1ull << 40);
    env_size("FAULTLINE_FILL_LIMIT", &c->fill_limit, 0, 1ull << 40);
    env_int("FAULTLINE_MALLOC_STACKS", &c->stacks, 0, 1);
    env_int("FAULTLINE_MALLOC_STACK_DEPTH", &c->stack_depth, 1, SHIM_MAX_STACK_DEPTH);
    env_size("FAULTLINE_STACK_DEPOT_BYTES", &c->depot_bytes, 1u << 16, 1ull << 34);
    env_int("FAULTLINE_HALT_ON_ERROR", &c->halt_on_error, 0, 1);
    env_int("FAULTLINE_ERROR_EXITCODE", &c->exit_code, 1, 255);
    env_int("FAULTLINE_CHECK_AT_EXIT", &c->check_at_exit, 0, 1);
    env_int("FAULTLINE_ALLOC_DEALLOC_MISMATCH", &c->alloc_dealloc_mismatch, 0, 1);
    env_int("FAULTLINE_NEW_DELETE_TYPE_MISMATCH", &c->new_delete_type_mismatch, 0, 1);
    env_int("FAULTLINE_MAX_FRAMES", &c->max_frames, 1, SHIM_MAX_REPORT_FRAMES);
    env_int("FAULTLINE_MAX_HEAP_REPORTS", &c->max_reports, 1, 1000000);
    env_int("FAULTLINE_SHIM_STATS", &c->stats, 0, 1);
    c->leak_check_at_exit = detectors_include(detectors, "leaks", 0, 0);
    c->leak_signal = SIGRTMIN + 11;
    c->leak_stop_signal = SIGRTMIN + 10;
    // Live-block records cost two list updates and a depot update per
    // malloc/free pair: keep them only for the detectors that read them
    // (leaks, and the memory monitor's top allocation stacks).
    c->leak_tracking = detectors_include(detectors, "leaks", "memory", 0);
    env_int("FAULTLINE_LEAK_TRACKING", &c->leak_tracking, 0, 1);
    env_int("FAULTLINE_LEAK_CHECK_AT_EXIT", &c->leak_check_at_exit, 0, 1);
    env_int("FAULTLINE_LEAK_SHOW_REACHABLE", &c->leak_show_reachable, 0, 1);
    // 0 turns the on-demand signal off; otherwise any signal but the fault
    // signals and the uncatchable ones.
    shim_env_signal("FAULTLINE_LEAK_SIGNAL", &c->leak_signal, 1);
    shim_env_signal("FAULTLINE_LEAK_STOP_SIGNAL", &c->leak_stop_signal, 0);
    env_int("FAULTLINE_LEAK_STOP_TIMEOUT_MS", &c->leak_stop_timeout_ms, 1, 60000);
    env_int("FAULTLINE_LEAK_MAX_GROUPS", &c->leak_max_groups, 1, 100000);
    env_int("FAULTLINE_LEAK_GROWTH_MS", &c->leak_growth_ms, 0, 86400000);
    env_int("FAULTLINE_LEAK_GROWTH_SNAPSHOTS", &c->leak_growth_snapshots, 2, 1000);
    env_size("FAULTLINE_LEAK_GROWTH_MIN_BYTES", &c->leak_growth_min_bytes, 0, 1ull << 40);
    if (!c->leak_tracking) { c->leak_check_at_exit = 0; c->leak_growth_ms = 0; }
    const char *sup = getenv("FAULTLINE_SUPPRESSIONS");
    // Cut short, the path would name another file: refused instead.
    if (sup && *sup && fl_strlen(sup) >= sizeof c->suppressions)
        shim_config_warn("FAULTLINE_SUPPRESSIONS", sup, "is a path of 4096 bytes or more; nothing is suppressed (use a shorter path)");
    else if (sup && *sup) fl_strlcpy(c->suppressions, sup, sizeof c->suppressions);
    // The old name, for leaks only: said, not read (one name for one file).
    const char *old = getenv("FAULTLINE_LEAK_SUPPRESSIONS");
    if (old && *old)
        shim_config_warn("FAULTLINE_LEAK_SUPPRESSIONS", old, "is no longer read: set FAULTLINE_SUPPRESSIONS=FILE instead (the same format, for leaks and heap errors)");
    const char *u = getenv("FAULTLINE_MALLOC_UNWINDER");
    if (u && *u) {
        if (fl_streq(u, "fp")) c->unwinder = SHIM_UNWIND_FP;
        else if (fl_streq(u, "libunwind")) c->unwinder = SHIM_UNWIND_LIBUNWIND;
        else if (fl_streq(u, "auto")) c->unwinder = SHIM_UNWIND_AUTO;
        else shim_config_warn("FAULTLINE_MALLOC_UNWINDER", u, "is not one of auto, fp, libunwind; using the default");
    }
}
