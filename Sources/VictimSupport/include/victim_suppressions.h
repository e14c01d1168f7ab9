// Running a victim command under a suppressions file it writes itself, so
// that a scenario can say the file's lines in its arguments.
#ifndef VICTIM_SUPPRESSIONS_H
#define VICTIM_SUPPRESSIONS_H

#ifdef __cplusplus
extern "C" {
#endif

/// Writes `lines` (and a final newline) to victim.supp in the working
/// directory, sets FAULTLINE_SUPPRESSIONS to its absolute path and runs
/// this program again as `program` with `args` (NULL-terminated) in place
/// of the current process. Returns 2 after a line on stderr when it could
/// not.
int victim_rerun_with_suppressions(const char *lines, const char *program, char **args);

#ifdef __cplusplus
}
#endif
#endif
