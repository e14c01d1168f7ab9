// Where the shim passes calls once it stepped aside. Two cases meet here:
// - the shim comes first in link order (LD_PRELOAD=shim:jemalloc, or
//   glibc under it): the program calls the shim, which passes every call
//   to the next definition (RTLD_NEXT);
// - another allocator comes first (LD_PRELOAD=jemalloc:shim): the program
//   calls it, and reaches the shim only for entry points it lacks (jemalloc
//   has no reallocarray or pvalloc). Those must end in that allocator: the
//   next definition after the shim is glibc's, whose block jemalloc's free
//   rejects. A wrapper that forwards with RTLD_NEXT (heaptrack) reaches the
//   shim for the entry points it has, and those go on to glibc.
#include "shim_real.h"
#include "shim_lookup.h"

#include <dlfcn.h>
#include <stdint.h>

shim_next shim_next_fns;
shim_next shim_top_fns;
unsigned shim_top_lacks;

// The load base of the object holding `fn` (0 when unknown).
static uintptr_t object_of(void *fn) {
    Dl_info info;
    return fn && dladdr(fn, &info) ? (uintptr_t)info.dli_fbase : 0;
}

// The entry points' names and bits, in the order of shim_next's fields.
static const struct { const char *name; unsigned bit; } k_entries[] = {
    {"malloc", SHIM_ENTRY_MALLOC},
    {"free", SHIM_ENTRY_FREE},
    {"calloc", SHIM_ENTRY_CALLOC},
    {"realloc", SHIM_ENTRY_REALLOC},
    {"posix_memalign", SHIM_ENTRY_POSIX_MEMALIGN},
    {"aligned_alloc", SHIM_ENTRY_ALIGNED_ALLOC},
    {"memalign", SHIM_ENTRY_MEMALIGN},
    {"valloc", SHIM_ENTRY_VALLOC},
    {"pvalloc", SHIM_ENTRY_PVALLOC},
    {"malloc_usable_size", SHIM_ENTRY_USABLE_SIZE},
    {"reallocarray", SHIM_ENTRY_REALLOCARRAY},
    {"cfree", SHIM_ENTRY_CFREE},
};
#define FIELDS 10  // the first FIELDS entries are shim_next's fields

// Fills `out` from `handle`; a name that resolves to the shim itself (the
// allocator before it lacks it) is taken from the next definition instead,
// so nothing loops back into the shim.
static void fill(shim_next *out, void *handle, uintptr_t self) {
    void **fields = (void **)out;
    for (int i = 0; i < FIELDS; i++) {
        void *fn = shim_lookup(handle, k_entries[i].name);
        if (object_of(fn) == self) fn = shim_lookup(RTLD_NEXT, k_entries[i].name);
        fields[i] = fn;
    }
    // The optional ones only from malloc's own object: the entry points
    // fall back to its memalign.
    uintptr_t owner = object_of((void *)out->malloc);
    if (object_of((void *)out->aligned_alloc) != owner) out->aligned_alloc = 0;
    if (object_of((void *)out->valloc) != owner) out->valloc = 0;
    if (object_of((void *)out->pvalloc) != owner) out->pvalloc = 0;
}

static int complete(const shim_next *n) {
    return n->malloc && n->free && n->calloc && n->realloc && n->posix_memalign && n->memalign && n->malloc_usable_size;
}

int shim_next_resolve(void) {
    // dlsym may allocate (dlerror's buffer): those calls come back into the
    // shim, which serves them from glibc with a header as usual.
    _Static_assert(sizeof(shim_next) == FIELDS * sizeof(void *), "one field per entry point");
    uintptr_t self = object_of((void *)&shim_next_resolve);
    int first = object_of(shim_lookup(RTLD_DEFAULT, "malloc")) == self;
    shim_next next, top;
    fill(&next, RTLD_NEXT, self);
    if (first) top = next;
    else fill(&top, RTLD_DEFAULT, self);
    if (!complete(&next) || !complete(&top)) return -1;
    unsigned lacks = 0;
    if (!first)
        for (unsigned i = 0; i < sizeof k_entries / sizeof k_entries[0]; i++)
            if (object_of(shim_lookup(RTLD_DEFAULT, k_entries[i].name)) == self) lacks |= k_entries[i].bit;
    shim_next_fns = next;
    shim_top_fns = top;
    shim_top_lacks = lacks;
    return 0;
}
