// Libraries loaded with dlopen(RTLD_DEEPBIND) look up their own symbols,
// malloc and free included, in themselves and their dependencies first:
// they call glibc's allocator, past the preloaded shim. The shim notices
// such a dlopen (one line on stderr), and from then on lets a free or
// realloc of a block glibc handed out (not the shim) go to glibc instead
// of reporting it as an invalid free.
#ifndef SHIM_DEEPBIND_H
#define SHIM_DEEPBIND_H

#include <stddef.h>

/// 1 when `p`, a pointer that is not a block of the shim's, is the start of
/// a chunk in use by glibc's allocator (main arena or a mapped chunk), by
/// glibc's own checks, and no shim block contains it; `*usable` then gets
/// the chunk's usable bytes. Always 0 until a library was loaded with
/// RTLD_DEEPBIND. Reads memory only through shim_safe_read.
int shim_deepbind_glibc_block(const void *p, size_t *usable);

/// 1 once a library was loaded with RTLD_DEEPBIND: its C++ new and delete
/// may be libstdc++'s, past the shim's (shim_cxx_new.c).
int shim_deepbind_seen(void);

#endif
