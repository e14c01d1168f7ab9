#include "page_size.h"

#include <sys/auxv.h>
#include <unistd.h>

static size_t g_page_size;

static size_t read_page_size(void) {
    unsigned long p = getauxval(AT_PAGESZ);
    if (p == 0) {
        long s = sysconf(_SC_PAGESIZE);
        p = s > 0 ? (unsigned long)s : 4096;  // 4096: only if both sources fail
    }
    return (size_t)p;
}

// Before any install code runs in this library (constructors of one object
// run in order, and this one has the highest priority the compiler allows
// for user code).
__attribute__((constructor(101))) static void init_page_size(void) { g_page_size = read_page_size(); }

size_t fl_page_size(void) {
    // Zero only if called from another library's constructor before ours ran.
    return g_page_size ? g_page_size : (g_page_size = read_page_size());
}

size_t fl_page_round_up(size_t n) {
    size_t p = fl_page_size();
    return (n + p - 1) & ~(p - 1);
}
