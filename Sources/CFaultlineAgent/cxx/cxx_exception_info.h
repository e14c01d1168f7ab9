// What the terminate handler learned about the exception that ended the
// process, gathered into preallocated storage before the report is written.
#ifndef FL_CXX_EXCEPTION_INFO_H
#define FL_CXX_EXCEPTION_INFO_H

#include "cxx_throw_hooks.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Most levels reported for nested exceptions (outer one included).
#define FL_CXX_MAX_LEVELS 8
/// Longest type name kept (demangled or mangled), with its NUL.
#define FL_CXX_TYPE_MAX 1024
/// Longest `what()` message or value kept, in bytes.
#define FL_CXX_TEXT_MAX 4096

/// One exception: the outer one, or one nested inside it.
typedef struct fl_cxx_exception_level {
    char type[FL_CXX_TYPE_MAX];          ///< demangled (mangled when not demangled)
    char type_mangled[FL_CXX_TYPE_MAX];  ///< as the runtime names it
    int has_message;                     ///< thrown object is a std::exception
    char message[FL_CXX_TEXT_MAX];       ///< its what()
    size_t message_len;
    int message_truncated;
    int has_value;                       ///< a readable non-class value
    char value[FL_CXX_TEXT_MAX];         ///< int, double, const char*, std::string…
    size_t value_len;
    int value_truncated;
    int foreign;                         ///< not a C++ exception (no type known)
    const void *object;                  ///< the thrown object
    int has_thrown;                      ///< `thrown` holds a record
    fl_cxx_throw_record thrown;          ///< where it was thrown
    int has_rethrown;                    ///< `rethrown` holds a record
    fl_cxx_throw_record rethrown;        ///< where `throw;` re-raised it
} fl_cxx_exception_level;

/// The exception that reached std::terminate, with its nested ones.
typedef struct fl_cxx_exception_info {
    int active;             ///< 0: std::terminate() with no active exception
    int levels;             ///< entries in `level`, outer first
    int nested_truncated;   ///< more nesting than FL_CXX_MAX_LEVELS
    int demangled;          ///< type names went through __cxa_demangle
    int frames;             ///< FAULTLINE_CXX_THROW_FRAMES in force
    fl_cxx_exception_level level[FL_CXX_MAX_LEVELS];
} fl_cxx_exception_info;

/// Fills `info` from the exception being handled (or notes there is none),
/// all but the throw records (`has_thrown`, `has_rethrown`). Runs in the
/// terminate handler, outside any signal handler; uses the C++ runtime
/// (rethrow and catch) and, unless `demangle` is 0, __cxa_demangle. Defined
/// by the describer library (Sources/CFaultlineAgentCxx), which links
/// libstdc++: the agent does not (cxx_describer.h).
__attribute__((visibility("default"))) void fl_cxx_describe_current(fl_cxx_exception_info *info, int demangle);

/// Preallocates the crash path's report buffers (the crash detector may be
/// off). Not async-signal-safe. Returns 0 or -1.
int fl_cxx_report_prepare(void);

/// Writes the `cxx_exception` report through the crash path: `exception`,
/// `throw_stack` and `rethrow_stack` from `info`, the terminating thread's
/// stack from `ucontext` (taken with getcontext(), so its pc is a return
/// address) from the frame of `handler_return` on (the terminate handler's
/// return address: the handler's own frames are left out), other threads
/// and images; the SIGABRT that follows writes no second report. Returns 0,
/// or -1 when another report is being written. Async-signal-safe.
int fl_cxx_report(const fl_cxx_exception_info *info, const void *ucontext, uintptr_t handler_return);


#ifdef __cplusplus
}
#endif
#endif
