// FAULTLINE_* environment options, read at install time (not on the fault
// path: getenv and stdio are used).
#ifndef FL_ENV_OPTION_H
#define FL_ENV_OPTION_H

#include "fl_options.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The integer in option `id`'s variable, or its default (fl_options.h)
/// when it is unset or empty. A value that is not a number in its range is
/// named in one line on stderr ("faultline: NAME=VALUE is not a number in
/// LO...HI; using DEFAULT") and the default is used.
int fl_env_int(fl_option_id id);

/// `fl_env_int`, saying nothing about a bad value when `quiet` (another
/// library in the process reads the same variable and says it).
int fl_env_int_quietly(fl_option_id id, int quiet);

/// Called right after the line about a bad value of variable `name`:
/// removes the variable, so that the processes this one starts use the
/// default it fell back to without saying so again — one line per process
/// tree (`make` or a shell script under `faultline exec` repeated it in
/// every process). unsetenv shifts the array in place: no allocation. Only
/// while the program has a single thread (a concurrent getenv could miss a
/// variable as the array shifts): a program that links the agent and
/// installs it after starting threads keeps the variable.
void fl_option_said(const char *name);

/// 1 when the detector list `list` (FAULTLINE_DETECTORS: names separated by
/// commas, or "all" or "none") names a detector that does not exist, copied
/// into `bad` (`cap` bytes); 0 for a valid, empty or missing list. The
/// agent's detectors and the malloc shim's are both known here, so each
/// side accepts the other's names.
int fl_detector_list_unknown(const char *list, char *bad, int cap);

#ifdef __cplusplus
}
#endif
#endif
