// FAULTLINE_* environment options, read at install time (not on the fault
// path: getenv and stdio are used).
#ifndef FL_ENV_OPTION_H
#define FL_ENV_OPTION_H

#ifdef __cplusplus
extern "C" {
#endif

/// The integer in variable `name`, or `fallback` when it is unset or empty.
/// A value that is not a number in lo...hi is named in one line on stderr
/// ("faultline: NAME=VALUE is not a number in LO...HI; using FALLBACK") and
/// the fallback is used.
int fl_env_int(const char *name, int fallback, int lo, int hi);

#ifdef __cplusplus
}
#endif
#endif
