// Reading a loaded object's dynamic symbol table directly, as the loader
// does, to ask whether it defines a name. A failed dlsym is not free: glibc
// mallocs dlerror's message and its result (the shim records a stack for
// each, and its quarantine keeps them: 15 of a C program's page faults came
// from the 40 failed lookups of the C++ operators alone); this asks
// without a failure to report, so that dlsym is called only to succeed.
#ifndef FL_SYMBOL_TABLE_H
#define FL_SYMBOL_TABLE_H

struct link_map;

/// The address of `name` when the object `m` defines it (a defined,
/// unhidden dynamic symbol: not an executable's canonical PLT entry for an
/// import), else NULL. Allocates nothing and takes no lock; `m` must stay
/// loaded.
void *fl_symbol_in(const struct link_map *m, const char *name);

/// 1 when an object after the one holding `self`, in load order, defines
/// `name` (where dlsym(RTLD_NEXT) from there looks), else 0.
int fl_symbol_after(const void *self, const char *name);

/// 1 when any loaded object defines `name` (where dlsym(RTLD_DEFAULT)
/// looks, for the objects loaded at start), else 0.
int fl_symbol_anywhere(const char *name);

#endif
