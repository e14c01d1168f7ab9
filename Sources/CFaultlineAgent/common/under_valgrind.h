// Whether valgrind runs this process: its core preload (vgpreload_core-*.so)
// is among the loaded objects. The agent then installs only the crash and
// C++ exception detectors, which start no thread: its threads (hang
// watchdog, memory monitor, resource detectors) would be valgrind's
// "possibly lost" blocks at exit, and a test suite that runs its programs
// under `valgrind --error-exitcode=1` (jq's make check) failed under
// `faultline exec` for them. valgrind checks the heap itself, and the
// malloc shim steps aside for the same preload.
#ifndef FL_UNDER_VALGRIND_H
#define FL_UNDER_VALGRIND_H

/// 1 when valgrind's core preload is loaded. Install time (dl_iterate_phdr).
int fl_under_valgrind(void);

#endif
