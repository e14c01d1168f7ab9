// Reading a loaded object's dynamic symbol table directly, as the loader
// does, to ask whether it defines a name. A failed dlsym is not free: glibc
// mallocs dlerror's message, which the shim's quarantine then keeps (15 of
// a C program's page faults came from the 40 failed lookups of the C++
// operators alone); this asks without a failure to report.
#ifndef SHIM_SYMBOLS_H
#define SHIM_SYMBOLS_H

struct link_map;

/// The address of `name` when the object `m` defines it (a defined,
/// unhidden dynamic symbol: not an executable's canonical PLT entry for an
/// import), else NULL. Allocates nothing and takes no lock; `m` must stay
/// loaded.
void *shim_symbol_in(const struct link_map *m, const char *name);

#endif
