// The process's C++ runtime, found without linking one: the agent needs no
// libstdc++ of its own (loading it costs a C program ~0.9 ms and 61 page
// faults), so every runtime function the C++ detector and the agent's
// interposers forward to is looked up here, once the process has a runtime
// — at load, or when a library brings one in later (dlopen).
#ifndef FL_CXX_RUNTIME_H
#define FL_CXX_RUNTIME_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The runtime's functions the agent calls; null until the runtime is seen.
typedef struct fl_cxx_runtime {
    void *(*allocate_exception)(size_t);
    void (*cxa_throw)(void *, void *, void (*)(void *));
    void (*rethrow)(void);
    void *(*begin_catch)(void *);
    void (*(*set_terminate)(void (*)(void)))(void);
    /// std::current_exception: an exception_ptr (one pointer) returned
    /// through a hidden pointer to the result, passed first and handed back.
    void *(*current_exception)(void *result);
    /// exception_ptr's destructor (drops the reference current_exception took).
    void (*exception_ptr_destroy)(void *ptr);
    /// The std::type_info of the exception being handled, or null.
    const void *(*current_exception_type)(void);
} fl_cxx_runtime;

/// The functions found so far (a member stays null until found).
extern fl_cxx_runtime fl_cxx_rt;

/// Looks the runtime's functions up when a C++ runtime (libstdc++ or
/// libc++abi) is loaded; else does nothing and returns 0. Returns 1 once
/// found. The next definitions after the agent come first (RTLD_NEXT); a
/// runtime a library brought in with RTLD_LOCAL is asked directly. Cheap
/// when there is none (a walk of the loaded objects' names, no system call,
/// no allocation). Not async-signal-safe.
int fl_cxx_runtime_find(void);

/// `found` (a member of fl_cxx_rt) when set, else the definition of
/// `name` in the object holding `caller` (a return address): a library
/// that carries its own runtime (-static-libstdc++), loaded with
/// RTLD_LOCAL, binds its calls to the agent's hooks with no runtime after
/// the agent to pass them to. NULL when neither has one.
void *fl_cxx_runtime_or_callers(void *found, const void *caller, const char *name);

/// 1 when the runtime found is libstdc++ (the agent's describer library
/// links it), else 0.
int fl_cxx_runtime_is_libstdcxx(void);

/// The thrown object of the exception being handled, or null (none, a
/// foreign exception, or no runtime). The runtime's own current_exception,
/// not the agent's interposer: nothing is published for other threads.
const void *fl_cxx_runtime_current_object(void);

/// The mangled name of the current exception's type ("" when unknown),
/// read from its std::type_info as the Itanium ABI lays it out.
const char *fl_cxx_runtime_current_type_name(void);

#ifdef __cplusplus
}
#endif
#endif
