// Timing and order statistics shared by the benchmark programs (bench_stats.h).
#include "bench_stats.h"

#include <stdlib.h>

uint64_t bench_now_ns(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

bench_stats bench_stats_of(uint64_t *v, int n) {
    bench_stats s = {.n = n};
    if (n <= 0) return s;
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    s.min = v[0];
    s.p10 = v[n / 10];
    s.median = v[n / 2];
    s.p90 = v[n * 9 / 10];
    s.max = v[n - 1];
    return s;
}
