// Readable names for suppression matching: C++ names through __cxa_demangle,
// Swift names through swift_demangle, each looked up with dlsym in the
// program's own runtime (the shim links neither; a program without the
// runtime has no such names). Both demanglers call malloc, so this runs only
// outside any signal handler, with the shim's locks dropped, and inside the
// shim's guard (shim_self.depth): their blocks get no stacks, and a heap
// error made meanwhile is neither matched nor reported.
#include "shim_suppress.h"
#include "sigsafe.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*cxx_demangle_fn)(const char *, char *, size_t *, int *);
typedef char *(*swift_demangle_fn)(const char *, size_t, char *, size_t *, uint32_t);

/// Swift's mangling prefixes (Swift 5+, embedded, Swift 4, with and without
/// the leading underscore some platforms add).
static int is_swift_mangled(const char *name) {
    static const char *const prefixes[] = {"$s", "_$s", "$e", "_$e", "$S", "_$S", "_T0", 0};
    for (int i = 0; prefixes[i]; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0) return 1;
    return 0;
}

const char *shim_demangle(const char *name, char *out, size_t cap) {
    char *d = 0;
    if (strncmp(name, "_Z", 2) == 0) {
        cxx_demangle_fn cxx = (cxx_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
        int status = -1;
        if (cxx) d = cxx(name, 0, 0, &status);
        if (status != 0) { free(d); d = 0; }
    } else if (is_swift_mangled(name)) {
        swift_demangle_fn swift = (swift_demangle_fn)dlsym(RTLD_DEFAULT, "swift_demangle");
        if (swift) d = swift(name, strlen(name), 0, 0, 0);
    }
    if (!d) return 0;
    fl_strlcpy(out, d, cap);
    free(d);
    return out;
}
