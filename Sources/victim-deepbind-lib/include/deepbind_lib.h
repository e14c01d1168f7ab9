// The functions victim-heap looks up in libVictimDeepbind.so after loading
// it with RTLD_DEEPBIND.
#ifndef DEEPBIND_LIB_H
#define DEEPBIND_LIB_H

/// A copy of `text` in memory from the library's own malloc.
char *deepbind_copy(const char *text);
/// The library's own free.
void deepbind_release(void *p);

#endif
