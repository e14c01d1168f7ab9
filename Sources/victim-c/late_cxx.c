// A C program (no C++ runtime at start) that loads a C++ library with
// dlopen(RTLD_LOCAL), which throws once and catches, then throws an
// exception nobody catches.
#include "victim_paths.h"
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int victim_late_cxx_uncaught(void) {
    // libVictimLateCxx.so sits beside this program in the build directory.
    char path[PATH_MAX];
    if (victim_beside_self(path, sizeof path, "libVictimLateCxx.so") != 0) return 3;
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "victim: %s\n", dlerror());
        return 3;
    }
    int (*caught)(void) = (int (*)(void))dlsym(lib, "late_cxx_throw_caught");
    void (*uncaught)(void) = (void (*)(void))dlsym(lib, "late_cxx_throw_uncaught");
    if (!caught || !uncaught) return 3;
    fprintf(stderr, "victim: the library caught its first throw: %s\n", caught() ? "yes" : "no");
    uncaught();
    return 0;
}
