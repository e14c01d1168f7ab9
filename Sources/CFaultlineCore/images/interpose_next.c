#include "interpose_next.h"
#include "symbol_table.h"

#include <string.h>

// The linker's bounds of this image's "fl_next_slots" section (weak: an
// image with no FL_NEXT interposer has none).
extern const fl_next_slot __start_fl_next_slots[] __attribute__((weak, visibility("hidden")));
extern const fl_next_slot __stop_fl_next_slots[] __attribute__((weak, visibility("hidden")));

// 1 when `name` may have no definition after this image: the other
// Faultline image's functions (none after the shim, nor without it). A
// libc function an interposer passes on always has one.
static int maybe_missing(const char *name) { return strncmp(name, "faultline_", 10) == 0; }

// Fills every FL_NEXT interposer's next definition as the image loads:
// RTLD_NEXT from here finds what it finds from the interposer, in the same
// image. A name that may be missing is looked for in the symbol tables
// first: a failed dlsym mallocs dlerror's message (and the shim records
// its stack). Every name so (60 in the agent) cost more than it saved.
__attribute__((constructor)) static void fl_next_resolve_all(void) {
    if (!__start_fl_next_slots) return;
    for (const fl_next_slot *s = __start_fl_next_slots; s < __stop_fl_next_slots; s++)
        if (!*s->slot && (!maybe_missing(s->name) || fl_symbol_after((const void *)fl_next_resolve_all, s->name)))
            *s->slot = dlsym(RTLD_NEXT, s->name);
}
