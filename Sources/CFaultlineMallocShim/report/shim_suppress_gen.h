// FAULTLINE_GEN_SUPPRESSIONS=1 (`faultline exec --gen-suppressions`, after
// valgrind's option): each leak group and heap error reported prints, on
// stderr, a `#` comment naming it and the suppression line that silences
// it, in the suppressions file's format: the lines fed back as
// FAULTLINE_SUPPRESSIONS silence those reports. docs/leaks.md, "Generating
// suppressions".
#ifndef SHIM_SUPPRESS_GEN_H
#define SHIM_SUPPRESS_GEN_H

#include "shim_leak_groups.h"
#include "suppressions_parse.h"

#include <stdint.h>

/// The suppression for each lost group of a leak report (ordered, none
/// suppressed; an indirectly lost group held by another gets its holder's
/// line, which silences it with the holder). Symbolizes: after the scan.
void shim_suppress_gen_leaks(const leak_group *groups, uint64_t n);

/// The suppression for a heap error of `kind` about to be reported, from
/// the first frame of `pcs` (the erring call's stack) that names a
/// function not an allocator's.
void shim_suppress_gen_error(fl_supp_kind kind, const uintptr_t *pcs, int n);

/// Writes into `out` (FL_SUPP_PATTERN_MAX bytes) the pattern that names
/// `pcs`' first frame outside the allocator: `^FUNCTION$` (the symbol
/// table's name), else `^IMAGE_PATH$`; a name too long for a pattern is
/// anchored at its start only. Returns its length, 0 when no frame has a
/// name or an image. Symbolizes.
size_t shim_suppress_gen_pattern(const uintptr_t *pcs, int n, char *out);

#endif
