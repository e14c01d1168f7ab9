// The functions victim-heap looks up in libVictimDeepbind.so after loading
// it with RTLD_DEEPBIND.
#ifndef DEEPBIND_LIB_H
#define DEEPBIND_LIB_H

#include <stddef.h>

/// A copy of `text` in memory from the library's own malloc.
char *deepbind_copy(const char *text);
/// The library's own free.
void deepbind_release(void *p);
/// The library's own malloc_usable_size (glibc's).
size_t deepbind_usable_size(void *p);

#endif
