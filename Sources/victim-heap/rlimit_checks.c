// victim-heap prlimit-as: the program lowers its own address-space limit
// with prlimit (Python's resource.prlimit does so), then allocates blocks
// too big for the shim's arena, which glibc maps on their own. The shim's
// 40 GiB arena reservation must be given back before the limit takes
// effect, and a mapping that lands where it was must be taken for glibc's,
// not for an arena block, when it is freed.
#include "victim_heap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define LIMIT 4000000000ull
#define BIG (8u << 20)
#define RESERVATION_MIN (512ull << 20)  // no other inaccessible mapping is this big

// The range covered by inaccessible anonymous mappings of 512 MiB or more
// before the limit (the arena's reserved, never-used regions); lo == hi == 0
// when none.
static void reservation_range(uintptr_t *lo, uintptr_t *hi) {
    *lo = *hi = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        unsigned long start, end;
        char perms[8];
        int path_at = 0;
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &start, &end, perms, &path_at) < 3) continue;
        // The trailing space in the format took the newline of a line without a path.
        if (strcmp(perms, "---p") != 0 || end - start < RESERVATION_MIN || line[path_at] != '\0') continue;
        if (!*lo || start < *lo) *lo = start;
        if (end > *hi) *hi = end;
    }
    fclose(f);
}

int prlimit_as(void) {
    uintptr_t lo, hi;
    reservation_range(&lo, &hi);
    struct rlimit limit = {LIMIT, RLIM_INFINITY};
    if (prlimit(0, RLIMIT_AS, &limit, NULL) != 0) { perror("victim: prlimit"); return 1; }
    int inside = 0;
    for (int i = 0; i < 4; i++) {
        char *p = malloc(BIG);
        if (!p) { printf("victim: malloc of 8 MiB failed under the lowered limit\n"); return 1; }
        memset(p, i + 1, BIG);
        if ((uintptr_t)p >= lo && (uintptr_t)p < hi) inside++;
        free(p);
    }
    printf("victim: four 8 MiB blocks allocated and freed under a %llu-byte address-space limit\n", LIMIT);
    // glibc maps the first ones; freeing a mapped block raises its threshold.
    printf("victim: a block lay where the arena's reservation was: %s\n", inside ? "yes" : "no");
    return 0;
}
