// Finding the describer library, and the description without it.
#include "cxx_describer.h"
#include "cxx_runtime.h"
#include "cxx_throw_hooks.h"

#include <dlfcn.h>
#include <limits.h>
#include <string.h>

// Defined when the executable links the describer target; else null here
// and looked for by dlopen.
#pragma weak fl_cxx_describe_current

typedef void (*describe_fn)(fl_cxx_exception_info *, int);
static describe_fn g_describe;

int fl_cxx_describer_load(void) {
    if (g_describe) return 0;
    if (fl_cxx_describe_current) {
        g_describe = fl_cxx_describe_current;
        return 0;
    }
    // The describer links libstdc++: loaded beside another runtime it
    // would bring a second one.
    if (!fl_cxx_runtime_is_libstdcxx()) return -1;
    Dl_info self;
    if (!dladdr((void *)fl_cxx_describer_load, &self) || !self.dli_fname || !strchr(self.dli_fname, '/')) return -1;
    char path[PATH_MAX];
    size_t dir = (size_t)(strrchr(self.dli_fname, '/') - self.dli_fname) + 1;
    if (dir + sizeof FL_CXX_DESCRIBER_LIBRARY > sizeof path) return -1;
    memcpy(path, self.dli_fname, dir);
    memcpy(path + dir, FL_CXX_DESCRIBER_LIBRARY, sizeof FL_CXX_DESCRIBER_LIBRARY);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    describe_fn fn = lib ? (describe_fn)dlsym(lib, "fl_cxx_describe_current") : 0;
    if (!fn) return -1;
    __atomic_store_n(&g_describe, fn, __ATOMIC_RELEASE);
    return 0;
}

// Without the describer: what the runtime's C interface tells.
static void describe_type_only(fl_cxx_exception_info *info) {
    info->levels = 0;
    info->nested_truncated = 0;
    info->demangled = 0;
    info->active = fl_cxx_rt.current_exception_type && fl_cxx_rt.current_exception_type();
    if (!info->active) return;
    fl_cxx_exception_level *L = &info->level[0];
    memset(L, 0, sizeof *L);
    info->levels = 1;
    L->object = fl_cxx_runtime_current_object();
    if (!L->object) {
        L->foreign = 1;
        return;
    }
    const char *name = fl_cxx_runtime_current_type_name();
    strncpy(L->type_mangled, name, FL_CXX_TYPE_MAX - 1);
    memcpy(L->type, L->type_mangled, FL_CXX_TYPE_MAX);
}

void fl_cxx_describe(fl_cxx_exception_info *info, int demangle) {
    describe_fn fn = __atomic_load_n(&g_describe, __ATOMIC_ACQUIRE);
    if (fn) fn(info, demangle);
    else describe_type_only(info);
    for (int i = 0; i < info->levels; i++) {
        fl_cxx_exception_level *L = &info->level[i];
        L->has_thrown = L->object && fl_cxx_throw_lookup(L->object, &L->thrown);
        L->has_rethrown = L->object && fl_cxx_rethrow_lookup(L->object, &L->rethrown);
    }
}
