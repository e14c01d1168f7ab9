// deepbind-cxx: blocks pass between the program and a C++ library loaded
// with RTLD_DEEPBIND (libVictimDeepbindCxx.so, beside this program), each
// pair matched (new with delete, new[] with delete[]): no report.
#include "victim_paths.h"
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int victim_deepbind_cxx_main(int, char **) {
    char path[PATH_MAX];
    if (victim_beside_self(path, sizeof path, "libVictimDeepbindCxx.so") != 0) return 3;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h) { fprintf(stderr, "victim: %s\n", dlerror()); return 3; }
    auto new_array = (int *(*)())dlsym(h, "deepbind_cxx_new_array");
    auto new_one = (int *(*)())dlsym(h, "deepbind_cxx_new");
    auto delete_array = (void (*)(int *))dlsym(h, "deepbind_cxx_delete_array");
    auto delete_one = (void (*)(int *))dlsym(h, "deepbind_cxx_delete");
    if (!new_array || !new_one || !delete_array || !delete_one) return 3;
    delete[] new_array();          // the library's new[], the program's delete[]
    delete new_one();              // the library's new, the program's delete
    delete_array(new int[3]);      // the program's new[], the library's delete[]
    delete_one(new int(5));        // the program's new, the library's delete
    printf("victim: new and delete across a deep-bound library\n");
    return 0;
}
