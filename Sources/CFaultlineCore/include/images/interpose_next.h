// What an interposer in CFaultlineCore needs to pass a call on: the next
// definition of the function (the other Faultline image's copy, or libc's).
#ifndef FL_INTERPOSE_NEXT_H
#define FL_INTERPOSE_NEXT_H

#include <dlfcn.h>
#include <errno.h>

/// Exports a symbol from an image built with -fvisibility=hidden.
#define FL_EXPORT __attribute__((visibility("default")))

/// Where an FL_NEXT interposer keeps its next definition, listed in the
/// image's "fl_next_slots" section so that interpose_next.c's constructor
/// fills every one when the image loads.
typedef struct fl_next_slot {
    void **slot;
    const char *name;
} fl_next_slot;

/// Lists the static function pointer `var`, the next definition of `name`,
/// so that it is filled when the image loads (for interposers that keep
/// their own fallback instead of FL_NEXT's ENOSYS).
#define FL_NEXT_SLOT(var, name) \
    static const fl_next_slot var##_slot_ __attribute__((section("fl_next_slots"), used)) = {(void **)&var, name};

/// Declares `void *next_NAME`, the next definition of the function NAME,
/// listed as an FL_NEXT_SLOT.
#define FL_NEXT_VAR(name)         \
    static void *next_##name;     \
    FL_NEXT_SLOT(next_##name, #name)

/// Declares `next`, the next definition of `name` (of type `type`),
/// found when the image loads (dlsym takes the loader's lock: a first
/// call made while another thread's dlopen held it waited for ever), or
/// on the first call made before that; the calling function returns -1
/// with ENOSYS when there is none.
#define FL_NEXT(type, name)                                                                                  \
    static type next;                                                                                        \
    static const fl_next_slot next_slot_ __attribute__((section("fl_next_slots"), used)) = {(void **)&next, name}; \
    if (!next) next = (type)dlsym(RTLD_NEXT, name);                                                          \
    if (!next) { errno = ENOSYS; return -1; }

#endif
