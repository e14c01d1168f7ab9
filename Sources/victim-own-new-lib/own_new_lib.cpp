// A library that defines the global operator new and delete (a static
// pool, as some libraries do), linked with -Bsymbolic-functions so its own
// calls bind to them. Loaded at start (victim-cxx own-new-library preloads
// it after the shim), its operators are everyone's without the shim.
#include "own_new_lib.h"

#include <cstddef>
#include <new>

alignas(16) static char pool[1 << 16];
static size_t used;

void *operator new(size_t n) {
    if (used + ((n + 15) & ~(size_t)15) > sizeof pool) throw std::bad_alloc();
    void *p = pool + used;
    used += (n + 15) & ~(size_t)15;
    return p;
}
void operator delete(void *) noexcept {}
void operator delete(void *, size_t) noexcept {}

int *own_new_library_make(void) { return new int(4); }
