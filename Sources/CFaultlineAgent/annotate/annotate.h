// Annotations and the phase (faultline_annotate, faultline_set_phase): a
// program's own key/value pairs and the step of its work it is in, kept in
// preallocated slots and written into every report, the agent's and the
// malloc shim's (`annotations`, `phase`: docs/report-schema.md).
#ifndef FL_ANNOTATE_H
#define FL_ANNOTATE_H

#include "json_writer.h"

/// Most annotations a process holds at once.
#define FL_ANNOTATE_SLOTS 32
/// Longest key, bytes (longer ones are refused).
#define FL_ANNOTATE_KEY_MAX 63
/// Longest value or phase, bytes (longer ones are cut).
#define FL_ANNOTATE_VALUE_MAX 255

/// Reads FAULTLINE_ANNOTATIONS (`KEY=VALUE` lines, what `faultline exec
/// --annotate` sets) and FAULTLINE_PHASE, and makes this copy's reports
/// and the malloc shim's carry the annotations. Install time.
void fl_annotate_install(void);
/// Writes `"phase"` and `"annotations"` into the report being written,
/// when any are set. Async-signal-safe, allocation-free; a slot being
/// changed at that moment by another thread is left out, never torn.
void fl_annotate_write(fl_json *w);

#endif
