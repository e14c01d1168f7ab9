#include "shim_lookup.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stddef.h>

// 1 when `fn` is a defined symbol (not an executable's PLT entry for an
// import) lying in `lm`.
static int defined_in(void *fn, const struct link_map *lm) {
    Dl_info info;
    const ElfW(Sym) *sym = 0;
    struct link_map *where = 0;
    if (!fn || !dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || sym->st_shndx == SHN_UNDEF) return 0;
    return dladdr1(fn, &info, (void **)&where, RTLD_DL_LINKMAP) && where == lm;
}

// The first object in load order (the global lookup order of everything
// loaded at start: the executable, the preloads, their dependencies) that
// defines `name` itself.
static void *first_definition(const char *name) {
    void *main_handle = dlopen(NULL, RTLD_LAZY);
    struct link_map *lm = 0;
    if (!main_handle || dlinfo(main_handle, RTLD_DI_LINKMAP, &lm) != 0) return 0;
    void *found = 0;
    for (struct link_map *first = lm; lm && !found; lm = lm->l_next) {
        // The vdso and the like cannot be opened by name: they define no malloc.
        void *h = lm == first ? main_handle : dlopen(lm->l_name, RTLD_LAZY | RTLD_NOLOAD);
        if (!h) continue;
        void *fn = dlsym(h, name);  // searches h first, then what it needs
        if (defined_in(fn, lm)) found = fn;
        if (h != main_handle) dlclose(h);
    }
    dlclose(main_handle);
    return found;
}

void *shim_lookup(void *handle, const char *name) {
    void *fn = dlsym(handle, name);
    if (handle != RTLD_DEFAULT || !fn) return fn;
    Dl_info info;
    const ElfW(Sym) *sym = 0;
    if (dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) && sym && sym->st_shndx == SHN_UNDEF) return first_definition(name);
    return fn;
}
