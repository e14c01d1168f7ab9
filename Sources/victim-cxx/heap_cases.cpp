// victim-cxx heap cases: C++ heap misuse for the malloc shim, each step in
// a named, non-inlined function so scenarios can expect it in the stacks.
//
//   heap-delete-array-twice   delete[] twice on a type with a destructor: the
//                             second delete[] reads its element count from
//                             the freed block (0x5555…) and scales it by the
//                             element size, so the crash shows 0xAAAA…A8.
#include "heap_cases.h"

#include <stdio.h>
#include <string.h>

#define HEAP_NOINLINE __attribute__((noinline))

namespace {
struct Gauge {
    long reading = 1;
    ~Gauge() { reading = 0; }
};
}  // namespace

HEAP_NOINLINE Gauge *victim_make_gauges() { return new Gauge[4]; }
HEAP_NOINLINE void victim_destroy_gauges(Gauge *g) { delete[] g; }

int victim_heap_main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "heap-delete-array-twice")) {
        Gauge *g = victim_make_gauges();
        victim_destroy_gauges(g);
        fprintf(stderr, "victim: delete[] the same array again\n");
        victim_destroy_gauges(g);
        return 1;
    }
    fprintf(stderr, "victim-cxx: unknown heap command '%s' (heap-delete-array-twice)\n", argc >= 2 ? argv[1] : "");
    return 2;
}
