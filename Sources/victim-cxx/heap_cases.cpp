// victim-cxx heap cases: C++ heap misuse for the malloc shim, each step in
// a named, non-inlined function so scenarios can expect it in the stacks.
//
//   heap-delete-array-twice   delete[] twice on a type with a destructor: the
//                             second delete[] reads its element count from
//                             the freed block (0x5555…) and scales it by the
//                             element size, so the crash shows 0xAAAA…A8.
//   heap-new-forms            every standard form of operator new and delete
//                             used as a program does: alignment, nothrow
//                             failure (NULL), throwing failure (bad_alloc),
//                             new_handler; prints what it saw, loses
//                             nothing, exits 0 (1 when a form misbehaved).
//   heap-mismatch-*           alloc/dealloc mismatches: heap_mismatch.cpp
#include "heap_cases.h"
#include "heap_mismatch.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <new>

#define HEAP_NOINLINE __attribute__((noinline))

namespace {
struct Gauge {
    long reading = 1;
    ~Gauge() { reading = 0; }
};
}  // namespace

HEAP_NOINLINE Gauge *victim_make_gauges() { return new Gauge[4]; }
HEAP_NOINLINE void victim_destroy_gauges(Gauge *g) { delete[] g; }

namespace {
struct alignas(256) Page256 {
    char bytes[300];
};

int g_handler_calls;
void count_and_give_up() {
    g_handler_calls++;
    std::set_new_handler(nullptr);  // the next failure throws
}
}  // namespace

// A size no allocator can give (and below PTRDIFF_MAX, so the compiler
// does not reject the expression).
static volatile size_t g_huge = (size_t)1 << 62;

HEAP_NOINLINE static int new_forms() {
    int bad = 0;
    int *one = new int(7);
    int *many = new int[100];
    many[99] = *one;
    Page256 *aligned = new Page256;
    Page256 *aligned_many = new Page256[3];
    if ((uintptr_t)aligned % 256 || (uintptr_t)aligned_many % 256) bad = 1, printf("victim: over-aligned new not aligned\n");
    int *quiet = new (std::nothrow) int[8];
    Page256 *quiet_aligned = new (std::nothrow) Page256;
    if (!quiet || !quiet_aligned || (uintptr_t)quiet_aligned % 256) bad = 1, printf("victim: nothrow new failed\n");
    char *none = new (std::nothrow) char[g_huge];
    printf("victim: nothrow new of 2^62 bytes gave %s\n", none ? "a block" : "NULL");
    if (none) bad = 1;
    try {
        char *huge = new char[g_huge];
        printf("victim: new of 2^62 bytes returned %p\n", (void *)huge);
        bad = 1;
    } catch (const std::bad_alloc &) {
        printf("victim: new of 2^62 bytes threw std::bad_alloc\n");
    }
    std::set_new_handler(count_and_give_up);
    try {
        char *huge = new char[g_huge];
        (void)huge;
        bad = 1;
    } catch (const std::bad_alloc &) {
        printf("victim: the new_handler ran %d time(s), then std::bad_alloc\n", g_handler_calls);
    }
    delete one;
    delete[] many;
    delete aligned;
    delete[] aligned_many;
    delete[] quiet;
    operator delete(quiet_aligned, std::align_val_t(256), std::nothrow);
    void *raw = operator new(24);
    operator delete(raw, 24);  // sized
    void *raw_aligned = operator new[](40, std::align_val_t(64));
    operator delete[](raw_aligned, 40, std::align_val_t(64));  // sized and aligned
    return bad;
}

int victim_heap_main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "heap-new-forms")) return new_forms();
    if (argc >= 2 && !strncmp(argv[1], "heap-mismatch-", 14)) return victim_mismatch_main(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "heap-delete-array-twice")) {
        Gauge *g = victim_make_gauges();
        victim_destroy_gauges(g);
        fprintf(stderr, "victim: delete[] the same array again\n");
        victim_destroy_gauges(g);
        return 1;
    }
    fprintf(stderr, "victim-cxx: unknown heap command '%s' (heap-delete-array-twice, heap-new-forms, heap-mismatch-*)\n", argc >= 2 ? argv[1] : "");
    return 2;
}
