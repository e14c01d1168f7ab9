// Files the build puts beside a victim (its test libraries).
#ifndef VICTIM_PATHS_H
#define VICTIM_PATHS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Writes the path of `name` in this program's own directory into `out`
/// (`cap` bytes, at least PATH_MAX for any name). Returns 0, or -1 when
/// /proc/self/exe cannot be read or the path does not fit.
int victim_beside_self(char *out, size_t cap, const char *name);

#ifdef __cplusplus
}
#endif

#endif
