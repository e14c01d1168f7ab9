#include "under_valgrind.h"
#include "sigsafe.h"

#include <link.h>
#include <string.h>

static int is_valgrind_core(struct dl_phdr_info *info, size_t size, void *unused) {
    (void)size; (void)unused;
    const char *path = info->dlpi_name;
    if (!path) return 0;
    const char *slash = strrchr(path, '/');
    return fl_startswith(slash ? slash + 1 : path, "vgpreload_core-");
}

int fl_under_valgrind(void) { return dl_iterate_phdr(is_valgrind_core, 0) != 0; }
