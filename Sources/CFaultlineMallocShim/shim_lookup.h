// Symbol lookups that see through canonical PLT entries. A non-PIE
// executable that takes the address of a function it imports (Debian's
// python3 does, for malloc and free) gets a PLT entry that stands for the
// function everywhere, and dlsym(RTLD_DEFAULT, "malloc") returns that entry
// in the executable: not a definition, just the way into whichever one the
// loader bound its calls to.
#ifndef SHIM_LOOKUP_H
#define SHIM_LOOKUP_H

/// dlsym(`handle`, `name`), except that with RTLD_DEFAULT a canonical PLT
/// entry is skipped for the first real definition in the global lookup
/// order (the one the entry leads to). NULL when there is none.
void *shim_lookup(void *handle, const char *name);

#endif
