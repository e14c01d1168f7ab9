// What every benchmark program needs to time and summarise its samples.
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stdint.h>
#include <time.h>

/// Nanoseconds on clock `c` (CLOCK_MONOTONIC, a thread's CPU clock, …).
uint64_t bench_now_ns(clockid_t c);

/// The order statistics of a set of samples.
typedef struct bench_stats {
    int n;
    uint64_t min, p10, median, p90, max;
} bench_stats;

/// Sorts `v` (n samples) in place and returns its order statistics (all 0
/// when n is 0).
bench_stats bench_stats_of(uint64_t *v, int n);

#endif
