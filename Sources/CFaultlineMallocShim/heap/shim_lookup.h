// Symbol lookups as the program's own references bind. Two things make a
// plain dlsym answer differently:
// - a program's reference to malloc carries glibc's symbol version
//   (malloc@GLIBC_2.2.5) and binds to the first definition that is either
//   unversioned (jemalloc's) or of that version. glibc's libc_malloc_debug.so
//   defines its malloc under that version only, hidden from unversioned
//   lookups: dlsym passes it over for glibc's; dlvsym in turn passes over
//   unversioned definitions;
// - a non-PIE executable that takes the address of a function it imports
//   (Debian's python3 does, for malloc and free) gets a canonical PLT entry
//   that stands for the function everywhere, and the lookup returns that
//   entry in the executable: not a definition, just the way into whichever
//   one the loader bound its calls to.
#ifndef SHIM_LOOKUP_H
#define SHIM_LOOKUP_H

/// The definition of `name` (an allocation entry point) that a program's
/// reference would reach through `handle` (RTLD_DEFAULT or RTLD_NEXT):
/// the earlier in load order of the unversioned and the versioned lookup,
/// and with RTLD_DEFAULT
/// through a canonical PLT entry to the first real definition in load
/// order. NULL when there is none.
void *shim_lookup(void *handle, const char *name);

/// The next definition of `name` after the shim (dlsym RTLD_NEXT), looked
/// up on first use and kept in `*slot`: for the functions the shim wraps
/// and hands on (C++ operators, libc functions that allocate), whose
/// libraries may be loaded after the shim starts.
void *shim_lookup_next_cached(void **slot, const char *name);

struct link_map;
/// The loaded object whose mappings hold `addr`, or NULL: dladdr's
/// dli_fbase and dli_fname without its search of the object's symbol
/// table for the nearest symbol, which took half a millisecond of every
/// process start once libstdc++ (six thousand symbols) was loaded.
const struct link_map *shim_object_of(const void *addr);

#endif
