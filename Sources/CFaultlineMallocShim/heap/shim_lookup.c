#include "shim_lookup.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stddef.h>
#include <string.h>

// The glibc version a program's reference to `name` carries (NULL on
// architectures not listed: unversioned lookups only).
static const char *glibc_version(const char *name) {
#if defined(__x86_64__)
    if (strcmp(name, "aligned_alloc") == 0) return "GLIBC_2.16";
    if (strcmp(name, "reallocarray") == 0) return "GLIBC_2.26";
    return "GLIBC_2.2.5";
#elif defined(__aarch64__)
    if (strcmp(name, "reallocarray") == 0) return "GLIBC_2.26";
    return "GLIBC_2.17";
#else
    (void)name;
    return NULL;
#endif
}

const struct link_map *shim_object_of(const void *addr) {
    struct dl_find_object found;
    return addr && _dl_find_object((void *)addr, &found) == 0 ? found.dlfo_link_map : 0;
}

// Of two definitions, the one whose object comes first in load order.
static void *earlier(void *a, void *b) {
    const struct link_map *ma = shim_object_of(a), *mb = shim_object_of(b);
    if (!ma || !mb || ma == mb) return a;
    for (const struct link_map *m = ma; m; m = m->l_next)
        if (m == mb) return a;
    return b;
}

// `name` through `handle` as a program's versioned reference binds: to the
// first object that defines it either unversioned (jemalloc; which dlvsym
// passes over) or under the reference's version (libc_malloc_debug; which
// dlsym passes over).
static void *find(void *handle, const char *name) {
    const char *version = glibc_version(name);
    void *plain = dlsym(handle, name);
    void *versioned = version ? dlvsym(handle, name, version) : NULL;
    if (!plain || !versioned) return plain ? plain : versioned;
    return earlier(plain, versioned);
}

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
        void *fn = find(h, name);  // searches h first, then what it needs
        if (defined_in(fn, lm)) found = fn;
        if (h != main_handle) dlclose(h);
    }
    dlclose(main_handle);
    return found;
}

void *shim_lookup(void *handle, const char *name) {
    void *fn = find(handle, name);
    if (handle != RTLD_DEFAULT || !fn) return fn;
    Dl_info info;
    const ElfW(Sym) *sym = 0;
    if (dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) && sym && sym->st_shndx == SHN_UNDEF) return first_definition(name);
    return fn;
}

void *shim_lookup_next_cached(void **slot, const char *name) {
    void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!f) {
        f = dlsym(RTLD_NEXT, name);
        __atomic_store_n(slot, f, __ATOMIC_RELEASE);
    }
    return f;
}
