// Loads the library given first with dlopen(RTLD_LOCAL) and calls its
// throw-and-catch; exit 0 when it caught.
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
    void *lib = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : 0;
    int (*caught)(void) = lib ? (int (*)(void))dlsym(lib, "own_runtime_throw_caught") : 0;
    if (!caught) {
        fprintf(stderr, "victim: %s\n", dlerror());
        return 3;
    }
    int r = caught();
    fprintf(stderr, "victim: the library caught its throw: %s\n", r ? "yes" : "no");
    return r ? 0 : 1;
}
