// own-new-library: libVictimOwnNew.so (beside this program) defines the
// global operator new and delete; the command runs itself again with the
// library preloaded after whatever LD_PRELOAD holds (the shim), and deletes
// a block the library's own new made. Without the shim every new and
// delete is the library's.
#include "victim_paths.h"
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int victim_own_new_library_main(int, char **argv) {
    auto make = (int *(*)())dlsym(RTLD_DEFAULT, "own_new_library_make");
    if (!make) {
        if (getenv("VICTIM_OWN_NEW_PRELOADED")) { fprintf(stderr, "victim: library not loaded\n"); return 3; }
        char path[PATH_MAX], preload[2 * PATH_MAX];
        if (victim_beside_self(path, sizeof path, "libVictimOwnNew.so") != 0) return 3;
        const char *was = getenv("LD_PRELOAD");
        snprintf(preload, sizeof preload, "%s%s%s", was ? was : "", was && *was ? ":" : "", path);
        setenv("LD_PRELOAD", preload, 1);
        setenv("VICTIM_OWN_NEW_PRELOADED", "1", 1);
        execv("/proc/self/exe", argv);
        return 3;
    }
    int *a = make();     // the library's new (its pool)
    delete a;            // the library's delete, as without the shim
    int *b = new int(3);
    delete b;
    int *c = new int[5];
    delete[] c;
    printf("victim: new and delete are the library's\n");
    return 0;
}
