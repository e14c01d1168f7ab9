// With VICTIM_CTOR_WAIT_FD set, the library's constructor (run by dlopen,
// which holds the loader's lock meanwhile) writes a byte to
// VICTIM_CTOR_READY_FD and waits for one on VICTIM_CTOR_WAIT_FD:
// victim-cxx-own-new loader-locked runs the program's first C++ operator
// while another thread holds the lock. With VICTIM_CTOR_DOUBLE_FREE set
// too, it then frees a block twice, still holding the lock (victim-heap
// double-free-loader-locked).
#include <stdlib.h>
#include <unistd.h>

/// Frees a block of its own twice (from the constructor).
__attribute__((noinline)) void victim_ctor_double_free(void) {
    void *volatile p = malloc(24);
    free(p);
    free(p);
}

__attribute__((constructor)) static void victim_ctor_wait(void) {
    const char *fd = getenv("VICTIM_CTOR_WAIT_FD"), *ready = getenv("VICTIM_CTOR_READY_FD");
    char c = 'r';
    if (!fd || !ready) return;
    (void)!write(atoi(ready), &c, 1);
    (void)!read(atoi(fd), &c, 1);
    if (getenv("VICTIM_CTOR_DOUBLE_FREE")) victim_ctor_double_free();
}
