// victim-heap-nopie: a position-dependent executable that takes the
// addresses of malloc and free, as Debian's python3 does. The linker then
// gives it canonical PLT entries that stand for both functions everywhere,
// and dlsym(RTLD_DEFAULT, "malloc") answers with the entry in this
// executable. The shim must still see that malloc is its own: new blocks
// read 0xAA, and a double free is reported.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

// The address taken: a table of allocator functions, as an interpreter keeps.
struct allocator { void *(*alloc)(size_t); void (*release)(void *); };
static struct allocator g_allocator = {malloc, free};

NOINLINE void *victim_nopie_alloc(size_t n) { return g_allocator.alloc(n); }
NOINLINE void victim_nopie_free(void *p) { g_allocator.release(p); }

int main(int argc, char **argv) {
    unsigned char *p = victim_nopie_alloc(16);
    printf("victim: new block reads %02x%02x%02x%02x\n", p[0], p[1], p[2], p[3]);
    fflush(stdout);
    if (argc > 1 && strcmp(argv[1], "double-free") == 0) {
        victim_nopie_free(p);
        fprintf(stderr, "victim: freeing a block twice through the table\n");
        victim_nopie_free(p);
        return 1;
    }
    victim_nopie_free(p);
    return 0;
}
