#include "symbol_table.h"

#include <dlfcn.h>

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

typedef struct dyn_tables {
    const ElfW(Sym) *symtab;
    const char *strtab;
    const uint32_t *gnu_hash;
    const ElfW(Word) *sysv_hash;
    const ElfW(Half) *versym;
} dyn_tables;

// glibc relocates an object's dynamic entries in place, except where the
// section is read-only (the vDSO): there they are still offsets.
static const void *at(const struct link_map *m, ElfW(Addr) ptr) {
    return (const void *)(ptr < m->l_addr ? m->l_addr + ptr : ptr);
}

static int tables_of(const struct link_map *m, dyn_tables *t) {
    memset(t, 0, sizeof *t);
    if (!m->l_ld) return 0;
    for (const ElfW(Dyn) *d = m->l_ld; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: t->symtab = at(m, d->d_un.d_ptr); break;
        case DT_STRTAB: t->strtab = at(m, d->d_un.d_ptr); break;
        case DT_GNU_HASH: t->gnu_hash = at(m, d->d_un.d_ptr); break;
        case DT_HASH: t->sysv_hash = at(m, d->d_un.d_ptr); break;
        case DT_VERSYM: t->versym = at(m, d->d_un.d_ptr); break;
        }
    }
    return t->symtab && t->strtab && (t->gnu_hash || t->sysv_hash);
}

// A definition dlsym would return for an unversioned name.
static void *definition(const struct link_map *m, const dyn_tables *t, uint32_t index, const char *name) {
    const ElfW(Sym) *s = &t->symtab[index];
    if (s->st_shndx == SHN_UNDEF || strcmp(t->strtab + s->st_name, name) != 0) return 0;
    if (t->versym && (t->versym[index] & 0x8000)) return 0;  // a hidden version
    int type = ELF64_ST_TYPE(s->st_info);
    if (type != STT_FUNC && type != STT_NOTYPE && type != STT_GNU_IFUNC && type != STT_OBJECT) return 0;
    void *addr = (void *)(m->l_addr + s->st_value);
    return type == STT_GNU_IFUNC ? ((void *(*)(void))addr)() : addr;
}

static void *in_gnu_hash(const struct link_map *m, const dyn_tables *t, const char *name) {
    uint32_t h = 5381;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) h = h * 33 + *c;
    const uint32_t *ht = t->gnu_hash;
    uint32_t nbuckets = ht[0], symoffset = ht[1], bloom_size = ht[2], shift = ht[3];
    const ElfW(Addr) *bloom = (const ElfW(Addr) *)(ht + 4);
    const uint32_t *buckets = (const uint32_t *)(bloom + bloom_size);
    const uint32_t *chain = buckets + nbuckets;
    const unsigned bits = sizeof(ElfW(Addr)) * 8;
    if (!nbuckets || !bloom_size) return 0;
    ElfW(Addr) word = bloom[(h / bits) % bloom_size];
    ElfW(Addr) mask = ((ElfW(Addr))1 << (h % bits)) | ((ElfW(Addr))1 << ((h >> shift) % bits));
    if ((word & mask) != mask) return 0;
    uint32_t i = buckets[h % nbuckets];
    if (i < symoffset) return 0;
    for (;; i++) {
        uint32_t h2 = chain[i - symoffset];
        if ((h | 1) == (h2 | 1)) {
            void *d = definition(m, t, i, name);
            if (d) return d;
        }
        if (h2 & 1) return 0;
    }
}

static void *in_sysv_hash(const struct link_map *m, const dyn_tables *t, const char *name) {
    uint32_t h = 0;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        h = (h << 4) + *c;
        uint32_t g = h & 0xf0000000u;
        if (g) h ^= g >> 24;
        h &= ~g;
    }
    ElfW(Word) nbucket = t->sysv_hash[0];
    const ElfW(Word) *bucket = t->sysv_hash + 2, *chain = bucket + nbucket;
    if (!nbucket) return 0;
    for (ElfW(Word) i = bucket[h % nbucket]; i != STN_UNDEF; i = chain[i]) {
        void *d = definition(m, t, i, name);
        if (d) return d;
    }
    return 0;
}

void *fl_symbol_in(const struct link_map *m, const char *name) {
    dyn_tables t;
    if (!m || !tables_of(m, &t)) return 0;
    return t.gnu_hash ? in_gnu_hash(m, &t, name) : in_sysv_hash(m, &t, name);
}

// The link map of the object holding `addr` (lock-free, glibc 2.35+).
static const struct link_map *object_of(const void *addr) {
    struct dl_find_object found;
    return _dl_find_object((void *)addr, &found) == 0 ? found.dlfo_link_map : 0;
}

int fl_symbol_after(const void *self, const char *name) {
    const struct link_map *m = object_of(self);
    for (m = m ? m->l_next : 0; m; m = m->l_next)
        if (fl_symbol_in(m, name)) return 1;
    return 0;
}

int fl_symbol_anywhere(const char *name) {
    const struct link_map *m = object_of((const void *)fl_symbol_anywhere);
    while (m && m->l_prev) m = m->l_prev;
    for (; m; m = m->l_next)
        if (fl_symbol_in(m, name)) return 1;
    return 0;
}
