// Options of the hang detector: defaults, FAULTLINE_HANG_* and
// FAULTLINE_DEADLOCK_* variables, and faultline_hang_configure. The values
// live in atomics so the watchdog picks up a change at its next tick.
#ifndef FL_HANG_OPTIONS_H
#define FL_HANG_OPTIONS_H

#include <stdint.h>

/// Most samples the ring holds (FAULTLINE_HANG_SAMPLES is capped here).
#define FL_HANG_RING_MAX 100

/// A snapshot of the options in force.
typedef struct fl_hang_options {
    uint64_t threshold_ns;           ///< unresponsive this long -> hang report
    uint64_t sample_ns;              ///< tick and sampling interval
    uint64_t deadlock_ns;            ///< blocked on a futex this long -> deadlock report; 0 off
    int ring;                        ///< samples kept (the last N)
    int deadlock_abort;              ///< 1: abort after a deadlock report
} fl_hang_options;

/// Reads the environment (once; bad values are named on stderr and the
/// default is used). Not async-signal-safe.
void fl_hang_options_load_env(void);

/// The options in force.
void fl_hang_options_get(fl_hang_options *out);

/// Writes a one-line reason into `err` and returns -1 when a value is out of
/// range; applies the non-zero fields and returns 0 otherwise.
int fl_hang_options_apply(int threshold_ms, int sample_ms, int deadlock_ms, int deadlock_abort,
                          char *err, int cap);

#endif
