#include "memory_code_lock.h"

#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 1
#endif

// The part of `path` after its last '/'.
static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int lock_image(struct dl_phdr_info *info, size_t size, void *unused) {
    (void)size, (void)unused;
    const char *name = base_name(info->dlpi_name ? info->dlpi_name : "");
    int ours = strncmp(name, "libFaultline", 12) == 0;
    // The monitor's calls into libc, and the loader resolving a lazily
    // bound one, run on their code too.
    int shared = strncmp(name, "libc.so", 7) == 0 || strncmp(name, "ld-linux", 8) == 0;
    if (!ours && !shared) return 0;
    long page = sysconf(_SC_PAGESIZE);
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t start = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)(page - 1);
        uintptr_t end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        // Ours whole (about 170 KiB each); libc's 1.4 MiB only as far as
        // it is in memory, so locking it costs no memory.
        if (ours) mlock((void *)start, end - start);
        else syscall(SYS_mlock2, (void *)start, end - start, MLOCK_ONFAULT);
    }
    return 0;
}

void fl_memory_code_lock(void) { dl_iterate_phdr(lock_image, 0); }
