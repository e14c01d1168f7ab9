// Whether valgrind runs this process: its core preload (vgpreload_core-*.so)
// is among the loaded objects. valgrind is then the process's checker, and
// the agent installs nothing: its threads would be valgrind's "possibly
// lost" blocks at exit, and a test suite that runs its programs under
// `valgrind --error-exitcode=1` (jq's make check) failed under `faultline
// exec` for them. The malloc shim steps aside for the same preload.
#ifndef FL_UNDER_VALGRIND_H
#define FL_UNDER_VALGRIND_H

/// 1 when valgrind's core preload is loaded. Install time (dl_iterate_phdr).
int fl_under_valgrind(void);

#endif
