// Which programs Faultline leaves alone, by the path of their executable:
// FAULTLINE_TRACE_CHILDREN_SKIP (no agent, no shim checks: valgrind's
// --trace-children-skip) and FAULTLINE_LEAK_CHECK_SKIP (no exit-time leak
// check: the system's tools, whose leaks are not the user's to fix).
#ifndef FL_EXE_MATCH_H
#define FL_EXE_MATCH_H

/// 1 when `path` matches one of the comma-separated `patterns`: `*` any
/// run of characters (`/` included), `?` one character, anything else
/// itself. Allocation-free.
int fl_glob_list_match(const char *patterns, const char *path);

/// 1 when this process's executable (/proc/self/exe) matches the patterns
/// in variable `name`, or the patterns `fallback` (may be NULL) when the
/// variable is unset. Allocation-free
/// (the malloc shim calls it while it starts).
int fl_exe_matches_env(const char *name, const char *fallback);

#endif
