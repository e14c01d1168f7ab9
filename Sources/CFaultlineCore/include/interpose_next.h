// What an interposer in CFaultlineCore needs to pass a call on: the next
// definition of the function (the other Faultline image's copy, or libc's).
#ifndef FL_INTERPOSE_NEXT_H
#define FL_INTERPOSE_NEXT_H

#include <dlfcn.h>
#include <errno.h>

/// Exports a symbol from an image built with -fvisibility=hidden.
#define FL_EXPORT __attribute__((visibility("default")))

/// Declares `next`, the next definition of `name` (of type `type`),
/// resolved once; the calling function returns -1 with ENOSYS when there
/// is none.
#define FL_NEXT(type, name)                                 \
    static type next;                                       \
    if (!next) next = (type)dlsym(RTLD_NEXT, name);         \
    if (!next) { errno = ENOSYS; return -1; }

#endif
