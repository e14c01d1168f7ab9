// The malloc-heavy workloads bench-shim measures (run in a child process
// under each setup by `bench-shim compare`).
//
//   mix      sizes like a typical program's (70 % up to 128 B, 25 % up to
//            1 KiB, 5 % up to 16 KiB), 20000 live, each new block written
//            in full, 10 % calloc, 10 % realloc growth: the pattern-heavy
//            worst case for fill and scribble.
//   uniform  sizes uniform over 16–4111 B, 4096 live, the program touching
//            16 B of each block (issue 29): what the allocator's own path
//            costs when the program does not write its blocks in full.
#ifndef BENCH_SHIM_WORKLOAD_H
#define BENCH_SHIM_WORKLOAD_H

#include <stddef.h>

/// Which workload.
typedef enum workload_kind { WORKLOAD_MIX, WORKLOAD_UNIFORM } workload_kind;

/// What to run.
typedef struct workload_opts {
    workload_kind kind;
    long ops;      ///< allocation operations per thread
    long live;     ///< slots of live blocks per thread
    int threads;
} workload_opts;

/// The workload's name on the command line (`mix`, `uniform`).
const char *workload_name(workload_kind kind);
/// Parses a name; 0 on success, -1 for a name that is no workload.
int workload_parse(const char *name, workload_kind *out);
/// Default live slots of a workload (mix 20000, uniform 4096).
long workload_default_live(workload_kind kind);
/// Runs the workload (over the model with BENCH_SHIM_ALLOCATOR=model) and
/// prints its one line (ns/op and checksum). Returns the exit status.
int workload_run(const workload_opts *o);

/// A size from the environment (`16M`, `4K`), or `fallback` when unset.
size_t bench_env_size(const char *name, size_t fallback);

#endif
