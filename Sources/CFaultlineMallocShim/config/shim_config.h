// The shim's options: one table of FAULTLINE_* variables with defaults
// (docs/malloc-shim.md lists them). Read once, in the constructor; until
// then the defaults apply.
#ifndef SHIM_CONFIG_H
#define SHIM_CONFIG_H

#include "fl_options.h"

#include <stddef.h>

/// How allocation and free stacks are captured.
/// FAULTLINE_MALLOC_UNWINDER: frame pointers only, libunwind only, or frame
/// pointers with libunwind where the walk cannot leave frame 0 (the default).
enum { SHIM_UNWIND_FP = 0, SHIM_UNWIND_LIBUNWIND = 1, SHIM_UNWIND_AUTO = 2 };

/// Resolved options.
typedef struct shim_config {
    int detect;                 ///< 0: pass everything through (FAULTLINE_DETECTORS)
    size_t quarantine_bytes;    ///< FAULTLINE_QUARANTINE_BYTES
    size_t quarantine_big_bytes; ///< FAULTLINE_QUARANTINE_BIG_BYTES: the budget's share for blocks of 1-64 KiB (0: no split)
    size_t quarantine_count;    ///< FAULTLINE_QUARANTINE_COUNT
    size_t scribble_limit;      ///< FAULTLINE_SCRIBBLE_LIMIT: 0x55 bytes per freed block
    int scribble_sample;        ///< FAULTLINE_SCRIBBLE_SAMPLE: 64-byte chunks verified at release besides the first 256 bytes and the last 64 (0: all)
    size_t fill_limit;          ///< FAULTLINE_FILL_LIMIT: 0xAA bytes per new block
    int stacks;                 ///< FAULTLINE_MALLOC_STACKS
    int stack_depth;            ///< FAULTLINE_MALLOC_STACK_DEPTH
    int unwinder;               ///< FAULTLINE_MALLOC_UNWINDER: SHIM_UNWIND_*
    size_t depot_bytes;         ///< FAULTLINE_STACK_DEPOT_BYTES
    int halt_on_error;          ///< FAULTLINE_HALT_ON_ERROR
    int exit_code;              ///< FAULTLINE_ERROR_EXITCODE
    int check_at_exit;          ///< FAULTLINE_CHECK_AT_EXIT
    int alloc_dealloc_mismatch; ///< FAULTLINE_ALLOC_DEALLOC_MISMATCH: report malloc/delete, new/free, new[]/delete…
    int new_delete_type_mismatch; ///< FAULTLINE_NEW_DELETE_TYPE_MISMATCH: report a sized or aligned delete that does not fit its new
    int max_frames;             ///< FAULTLINE_MAX_FRAMES (report stacks)
    int max_reports;            ///< FAULTLINE_MAX_HEAP_REPORTS: double/invalid free and write-after-free reports per process
    int stats;                  ///< FAULTLINE_SHIM_STATS: one line of figures at exit
    int leak_tracking;          ///< FAULTLINE_LEAK_TRACKING: keep live-block records
    int leak_check_at_exit;     ///< FAULTLINE_LEAK_CHECK_AT_EXIT (default: FAULTLINE_DETECTORS names leaks, or is unset/all)
    int leak_show_reachable;    ///< FAULTLINE_LEAK_SHOW_REACHABLE: list still-reachable groups too
    int gen_suppressions;       ///< FAULTLINE_GEN_SUPPRESSIONS: print a suppression for each leak group and heap error
    int leak_signal;            ///< FAULTLINE_LEAK_SIGNAL: on-demand check (0: none)
    int leak_stop_signal;       ///< FAULTLINE_LEAK_STOP_SIGNAL: parks the other threads during a scan
    int leak_stop_timeout_ms;   ///< FAULTLINE_LEAK_STOP_TIMEOUT_MS: wait for threads to park
    int leak_max_groups;        ///< FAULTLINE_LEAK_MAX_GROUPS: groups listed per report
    int leak_growth_ms;         ///< FAULTLINE_LEAK_GROWTH_MS: snapshot interval (0: growth mode off)
    int leak_growth_snapshots;  ///< FAULTLINE_LEAK_GROWTH_SNAPSHOTS: consecutive growing snapshots
    size_t leak_growth_min_bytes;  ///< FAULTLINE_LEAK_GROWTH_MIN_BYTES: growth over the window to report
    int guard;                  ///< FAULTLINE_GUARD: SHIM_GUARD_OFF, _ALL or _SAMPLE (guard/shim_guard.h)
    size_t guard_sample;        ///< FAULTLINE_GUARD=sample:N: N
    int guard_left;             ///< FAULTLINE_GUARD_SIDE=left
    int guard_align;            ///< FAULTLINE_GUARD_ALIGN: 1, 2, 4, 8 or 16
    size_t guard_slots;         ///< FAULTLINE_GUARD_SLOTS: the sample's pool
    char suppressions[4096];    ///< FAULTLINE_SUPPRESSIONS: file of KIND:PATTERN lines ("" none)
} shim_config;

/// Hard upper bound of FAULTLINE_MALLOC_STACK_DEPTH.
#define SHIM_MAX_STACK_DEPTH 64
/// Hard upper bound of report stacks.
#define SHIM_MAX_REPORT_FRAMES 256

/// The options in force.
extern shim_config shim_cfg;

/// Reads the FAULTLINE_* variables into shim_cfg. A bad value gets one line
/// on stderr naming it, and the default is kept. Allocation-free.
void shim_config_load(void);

/// "faultline: NAME=VALUE WHAT" as one line on stderr, without stdio (this
/// runs before and inside malloc). A VALUE over 96 bytes is shown cut, with
/// "...", so WHAT and the newline always fit.
void shim_config_warn(const char *name, const char *value, const char *what);

#endif
