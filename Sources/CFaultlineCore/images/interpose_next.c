#include "interpose_next.h"

// The linker's bounds of this image's "fl_next_slots" section (weak: an
// image with no FL_NEXT interposer has none).
extern const fl_next_slot __start_fl_next_slots[] __attribute__((weak, visibility("hidden")));
extern const fl_next_slot __stop_fl_next_slots[] __attribute__((weak, visibility("hidden")));

// Fills every FL_NEXT interposer's next definition as the image loads:
// RTLD_NEXT from here finds what it finds from the interposer, in the same
// image.
__attribute__((constructor)) static void fl_next_resolve_all(void) {
    if (!__start_fl_next_slots) return;
    for (const fl_next_slot *s = __start_fl_next_slots; s < __stop_fl_next_slots; s++)
        if (!*s->slot) *s->slot = dlsym(RTLD_NEXT, s->name);
}
