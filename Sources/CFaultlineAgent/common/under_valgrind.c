#include "under_valgrind.h"

#include <link.h>
#include <string.h>

static int is_valgrind_core(struct dl_phdr_info *info, size_t size, void *unused) {
    (void)size; (void)unused;
    const char *path = info->dlpi_name, *base = path;
    if (!path) return 0;
    for (const char *p = path; *p; p++) if (*p == '/') base = p + 1;
    return strncmp(base, "vgpreload_core-", 15) == 0;
}

int fl_under_valgrind(void) { return dl_iterate_phdr(is_valgrind_core, 0) != 0; }
