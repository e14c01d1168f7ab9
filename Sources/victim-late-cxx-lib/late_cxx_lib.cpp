// The throws of late_cxx_lib.h, each from a named, non-inlined function.
#include "late_cxx_lib.h"

#include <stdexcept>

#define NOINLINE __attribute__((noinline))

NOINLINE static void late_cxx_thrower(const char *what) { throw std::runtime_error(what); }

int late_cxx_throw_caught(void) {
    try {
        late_cxx_thrower("caught inside the library");
    } catch (const std::runtime_error &) {
        return 1;
    }
    return 0;
}

NOINLINE void late_cxx_throw_uncaught(void) { late_cxx_thrower("thrown by a library the C program loaded with dlopen"); }
