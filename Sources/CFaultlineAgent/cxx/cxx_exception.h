// The uncaught C++ exception detector: a terminate handler that reports the
// exception's type, message or value, nested exceptions and the stack of
// the throw (recorded by the throw hooks) as one `cxx_exception` report,
// then lets the process die by SIGABRT as it would have.
#ifndef FL_CXX_EXCEPTION_H
#define FL_CXX_EXCEPTION_H

#include "fl_options.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Default frames recorded per throw (FAULTLINE_CXX_THROW_FRAMES).
#define FL_CXX_THROW_FRAMES_DEFAULT FL_OPT_DEFAULT_CXX_THROW_FRAMES

/// Reads FAULTLINE_CXX_THROW_FRAMES and FAULTLINE_CXX_DEMANGLE, preallocates
/// the report path, starts recording throws and installs the terminate
/// handler (chained to the previous one). In a process with no C++ runtime
/// yet, the recording and the handler wait for the first throw or
/// std::set_terminate (fl_cxx_exception_runtime_loaded). Not
/// async-signal-safe. Returns 0, or -1 with errno set.
int fl_cxx_exception_install(void);

/// 1 while the install waits for a C++ runtime, else 0.
int fl_cxx_exception_waits_for_runtime(void);

/// Called by the hooks when the program uses a C++ runtime: finishes an
/// install that waited for one. Not async-signal-safe.
void fl_cxx_exception_runtime_loaded(void);

/// Stops recording throws and gives back the program's terminate handler
/// (faultline_uninstall). Not async-signal-safe.
void fl_cxx_exception_uninstall(void);

#ifdef __cplusplus
}
#endif
#endif
