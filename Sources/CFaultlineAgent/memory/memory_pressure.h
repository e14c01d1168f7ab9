// Memory-pressure notifications from the kernel, as file descriptors the
// monitor thread polls: cgroup v1 `memory.pressure_level` (an eventfd
// registered through `cgroup.event_control`), cgroup v2 PSI triggers on
// `memory.pressure`, and v2 `memory.events` (its `high` counter rises when
// usage goes over `memory.high`).
#ifndef FL_MEMORY_PRESSURE_H
#define FL_MEMORY_PRESSURE_H

#include "memory_cgroup.h"
#include "json_writer.h"

#include <poll.h>

/// Most sources at once.
#define FL_PRESSURE_MAX 3

/// The open sources.
typedef struct fl_pressure {
    struct pollfd pfds[FL_PRESSURE_MAX];
    int kinds[FL_PRESSURE_MAX];
    int count;
    int ctl_fds[FL_PRESSURE_MAX];   ///< files that must stay open for a registration
    uint64_t high_seen;             ///< last `high` count from memory.events
    char level[16];                 ///< v1 level asked for
    char trigger[64];               ///< v2 PSI trigger asked for
    char psi_path[4200];            ///< the memory.pressure file of the trigger
    char psi_refused[256];          ///< why the trigger asked for was not set ("" when it was, or none was asked)
    int psi_on;                     ///< 1 when a PSI trigger (`trigger`) is registered
    char level_refused[256];        ///< why the v1 level asked for was not registered ("" when it was, or none was asked)
} fl_pressure;

/// Opens the sources that apply to `m`: `level` (low, medium, critical or
/// off) for v1, `trigger` ("some 150000 2000000" or off) for PSI when the
/// process is in a non-root v2 cgroup — `fallback` instead when the kernel
/// refuses `trigger` (NULL: none), with `psi_refused` saying why — and
/// memory.events on v2. Returns the number opened; `why` says what was
/// skipped. Not async-signal-safe.
int fl_pressure_open(fl_pressure *p, const fl_memcg *m, const char *level, const char *trigger, const char *fallback,
                     char *why, int why_cap);

/// Handles a ready descriptor `i`; returns 1 when it is a pressure event
/// (and writes its `"pressure"` object), 0 when it was spurious.
int fl_pressure_take(fl_pressure *p, int i, fl_json *w);

/// Closes every source (a forked child does not share its parent's).
void fl_pressure_close(fl_pressure *p);

#endif
