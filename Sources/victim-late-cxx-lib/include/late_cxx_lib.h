// A C++ library a C program loads with dlopen(RTLD_LOCAL): the process has
// no C++ runtime until then (victim-c late-cxx-uncaught).
#ifndef VICTIM_LATE_CXX_LIB_H
#define VICTIM_LATE_CXX_LIB_H

#ifdef __cplusplus
extern "C" {
#endif

/// Throws a std::runtime_error and catches it; returns 1 when caught.
int late_cxx_throw_caught(void);

/// Throws a std::runtime_error that nothing catches (std::terminate).
void late_cxx_throw_uncaught(void);

#ifdef __cplusplus
}
#endif
#endif
