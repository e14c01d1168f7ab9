// A program that replaces two global operators only, operator new(size_t)
// and operator delete(void*), as many programs do: its new serves small
// objects from a static pool (the rest from malloc) and its delete gives
// pool pointers back to the pool and the rest to free. Every other form
// (sized delete, nothrow new, new[], delete[]) is libstdc++'s, which calls
// these two. Under the shim they must still all reach the program's pair.
#include "victim_threads.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <limits.h>
#include <new>
#include <pthread.h>
#include <unistd.h>

alignas(16) static char pool[1 << 16];
static size_t pool_used;
static int news, deletes;

static bool in_pool(void *p) { return (char *)p >= pool && (char *)p < pool + sizeof pool; }

void *operator new(size_t n) {
    news++;
    if (n <= 64 && pool_used + 64 <= sizeof pool) { void *p = pool + pool_used; pool_used += 64; return p; }
    void *p = malloc(n ? n : 1);
    if (!p) throw std::bad_alloc();
    return p;
}

void operator delete(void *p) noexcept {
    if (!p) return;
    deletes++;
    if (!in_pool(p)) free(p);
}

struct Small { long a[3]; };
struct Big { long a[40]; };

// loader-locked: another thread's dlopen holds the loader's lock (its
// library's constructor waits on a pipe) while main runs the operators.
int main(int argc, char **argv) {
    bool locked = argc > 1 && strcmp(argv[1], "loader-locked") == 0;
    if (locked && victim_start_dlopen_holder() != 0) abort();
    Small *s = new Small;            // the program's new (pool)
    delete s;                        // sized delete: libstdc++'s calls the program's
    Big *b = new Big;                // the program's new (malloc)
    delete b;
    Small *t = new (std::nothrow) Small;  // libstdc++'s nothrow new calls the program's
    delete t;
    int *a = new int[4];             // new[] and delete[]: libstdc++'s call the program's
    delete[] a;
    long *big = new long[100];
    delete[] big;
    printf("victim: own operators: %d new, %d delete\n", news, deletes);
    if (locked) {
        victim_release_dlopen_holder();
        printf("victim: the loader's lock was held meanwhile\n");
    }
    return news == 5 && deletes == 5 ? 0 : 1;
}
