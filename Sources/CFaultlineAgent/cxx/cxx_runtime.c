// Finding the C++ runtime's functions by name (cxx_runtime.h).
#include "cxx_runtime.h"
#include "symbol_table.h"

#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <string.h>

fl_cxx_runtime fl_cxx_rt;

static int g_found;
static int g_libstdcxx;
static char g_path[PATH_MAX];

typedef struct runtime_match {
    char *path;
    int libstdcxx;
} runtime_match;

static int is_named(const char *path, const char *prefix) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, prefix, strlen(prefix)) == 0;
}

static int find_runtime_object(struct dl_phdr_info *info, size_t size, void *data) {
    runtime_match *m = (runtime_match *)data;
    const char *name = info->dlpi_name;
    if (!name || !*name) return 0;
    int libstdcxx = is_named(name, "libstdc++.so");
    if (!libstdcxx && !is_named(name, "libc++abi.so")) return 0;
    if (strlen(name) >= PATH_MAX) return 0;
    strcpy(m->path, name);
    m->libstdcxx = libstdcxx;
    return 1;
}

// RTLD_NEXT first (what an interposer between the agent and the runtime
// defines wins, as it did when the agent linked libstdc++); the runtime
// itself when RTLD_NEXT has none (the runtime is outside the global scope).
static void *look_up(void *runtime, const char *name) {
    void *p = dlsym(RTLD_NEXT, name);
    return p ? p : (runtime ? dlsym(runtime, name) : 0);
}

#define FIND(member, name) \
    if (!fl_cxx_rt.member) __atomic_store_n((void **)&fl_cxx_rt.member, look_up(runtime, name), __ATOMIC_RELEASE)

int fl_cxx_runtime_find(void) {
    if (__atomic_load_n(&g_found, __ATOMIC_ACQUIRE)) return 1;
    runtime_match m = {g_path, 0};
    if (!dl_iterate_phdr(find_runtime_object, &m)) return 0;
    // A full path names a loaded object without a search of the library path.
    void *runtime = dlopen(g_path, RTLD_NOW | RTLD_NOLOAD);
    FIND(allocate_exception, "__cxa_allocate_exception");
    FIND(cxa_throw, "__cxa_throw");
    FIND(rethrow, "__cxa_rethrow");
    FIND(begin_catch, "__cxa_begin_catch");
    FIND(set_terminate, "_ZSt13set_terminatePFvvE");
    FIND(current_exception, "_ZSt17current_exceptionv");
    FIND(exception_ptr_destroy, "_ZNSt15__exception_ptr13exception_ptrD1Ev");
    FIND(current_exception_type, "__cxa_current_exception_type");
    g_libstdcxx = m.libstdcxx;
    __atomic_store_n(&g_found, 1, __ATOMIC_RELEASE);
    return 1;
}

int fl_cxx_runtime_is_libstdcxx(void) { return g_libstdcxx; }

void *fl_cxx_runtime_or_callers(void *found, const void *caller, const char *name) {
    if (found) return found;
    struct dl_find_object object;
    return _dl_find_object((void *)caller, &object) == 0 ? fl_symbol_in(object.dlfo_link_map, name) : 0;
}

const void *fl_cxx_runtime_current_object(void) {
    if (!fl_cxx_rt.current_exception) return 0;
    // libstdc++ and libc++ both keep the thrown object's address as the one
    // member of exception_ptr (the pointer __cxa_throw received).
    void *ptr = 0;
    fl_cxx_rt.current_exception(&ptr);
    const void *object = ptr;
    if (ptr && fl_cxx_rt.exception_ptr_destroy) fl_cxx_rt.exception_ptr_destroy(&ptr);
    return object;
}

const char *fl_cxx_runtime_current_type_name(void) {
    const void *type = fl_cxx_rt.current_exception_type ? fl_cxx_rt.current_exception_type() : 0;
    if (!type) return "";
    // std::type_info: a vtable pointer, then the mangled name ('*' first
    // for a type local to its object file, which name() skips).
    const char *name = ((const char *const *)type)[1];
    if (!name) return "";
    return *name == '*' ? name + 1 : name;
}

// A program linked with libstdc++ has it before the agent's constructors
// run: its functions are found here, before any thread could hold the
// loader's lock when the first throw or catch needs them.
__attribute__((constructor)) static void find_at_load(void) { fl_cxx_runtime_find(); }
