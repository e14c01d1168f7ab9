// Names for suppression matching, in process and outside any signal
// handler: dladdr for exported symbols, else the image file's .symtab
// (mapped read-only once per image), so static functions of an executable
// built without -rdynamic match too. No DWARF, no inlining, no demangling.
//
// Heap errors are matched on the thread that made them, so two threads may
// symbolize at once: the table of mapped files has a lock, taken only
// around looking a file up and mapping it, never across dladdr, which
// takes the loader's lock. A thread that holds the loader's lock (dlopen
// running a constructor, dlclose) and frees a block wrongly waits for no
// lock of ours that a thread waiting in dladdr holds (scenario
// memory.suppressed-loader-locked).
#include "shim_suppress.h"
#include "fd_transient.h"
#include "proc_tid.h"
#include "sigsafe.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILES 128

typedef struct symfile {
    uintptr_t base;
    const Elf64_Sym *syms;
    size_t nsyms;
    const char *strs;
    int tried;
} symfile;

static symfile g_files[MAX_FILES];
static int g_nfiles;
static pthread_mutex_t g_files_lock = PTHREAD_MUTEX_INITIALIZER;

void shim_symbolize_after_fork_child(void) { pthread_mutex_init(&g_files_lock, 0); }

// Fills `f` from the file at `path` (no symbols when it cannot be read).
static void map_symtab(symfile *f, const char *path) {
    int fd = fl_open_high(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    void *m = fstat(fd, &st) == 0 && st.st_size > (off_t)sizeof(Elf64_Ehdr) ? mmap(0, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    fl_close_high(fd);
    if (m == MAP_FAILED) return;
    const Elf64_Ehdr *eh = m;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > (uint64_t)st.st_size)
        return;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)((const char *)m + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
        const Elf64_Shdr *str = &sh[sh[i].sh_link];
        if (sh[i].sh_offset + sh[i].sh_size > (uint64_t)st.st_size || str->sh_offset + str->sh_size > (uint64_t)st.st_size) break;
        f->syms = (const Elf64_Sym *)((const char *)m + sh[i].sh_offset);
        f->nsyms = sh[i].sh_size / sizeof(Elf64_Sym);
        f->strs = (const char *)m + str->sh_offset;
        break;
    }
}

// The image at `base`, mapped at its first use; NULL when the table is full.
static symfile *open_symtab(const char *path, uintptr_t base) {
    symfile *f = 0;
    pthread_mutex_lock(&g_files_lock);
    for (int i = 0; i < g_nfiles && !f; i++) if (g_files[i].base == base) f = &g_files[i];
    if (!f && g_nfiles < MAX_FILES) {
        f = &g_files[g_nfiles];
        *f = (symfile){.base = base, .tried = 1};
        map_symtab(f, path);
        g_nfiles++;  // whole before another thread can find it
    }
    pthread_mutex_unlock(&g_files_lock);
    return f;
}

void shim_symbolize(uintptr_t pc, const char **function, const char **image, uintptr_t *base) {
    *function = "";
    *image = "";
    if (base) *base = 0;
    Dl_info info;
    uintptr_t at = pc ? pc - 1 : pc;  // a return address: look up the call
    if (!dladdr((void *)at, &info)) return;
    if (base) *base = (uintptr_t)info.dli_fbase;
    if (info.dli_fname) *image = info.dli_fname;
    if (info.dli_sname && info.dli_saddr) { *function = info.dli_sname; return; }
    const char *path = info.dli_fname;
    // The main program's dli_fname may be its argv[0]; its file is the exe
    // link (the calling thread's: the main thread's is gone once it ended).
    char exe[64];
    if (!path || !*path || !strchr(path, '/')) {
        fl_proc_self_path(exe, sizeof exe, "exe");
        path = exe;
    }
    symfile *f = open_symtab(path, (uintptr_t)info.dli_fbase);
    if (!f || !f->syms) return;
    uintptr_t off = at - (uintptr_t)info.dli_fbase;
    for (size_t i = 0; i < f->nsyms; i++) {
        const Elf64_Sym *s = &f->syms[i];
        if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || !s->st_size) continue;
        if (off >= s->st_value && off < s->st_value + s->st_size) { *function = f->strs + s->st_name; return; }
    }
}
