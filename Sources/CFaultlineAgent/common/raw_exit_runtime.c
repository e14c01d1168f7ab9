#include "raw_exit_runtime.h"

#include <dlfcn.h>

int fl_runtime_exits_raw(void) {
    // runtime/cgo's entry, called by Go's runtime at start; exported by every
    // cgo executable (and c-shared library already loaded).
    return dlsym(RTLD_DEFAULT, "x_cgo_init") != 0;
}
