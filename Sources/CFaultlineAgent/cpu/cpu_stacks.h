// The stacks of one CPU episode's thread, sampled every 50 ms, aggregated:
// two samples are the same stack when they have the same depth and the
// same return addresses (frame 0, the interrupted instruction, may differ
// within one function), as the hang detector's culprit. Static storage.
#ifndef FL_CPU_STACKS_H
#define FL_CPU_STACKS_H

#include <stdint.h>

#define FL_CPU_STACKS 32
#define FL_CPU_FRAMES 64

/// One distinct stack and how many samples had it.
typedef struct fl_cpu_stack {
    int n, count, by_fp;
    uintptr_t pcs[FL_CPU_FRAMES];
} fl_cpu_stack;

/// An episode's samples.
typedef struct fl_cpu_stacks {
    int distinct;
    int samples;   ///< samples taken
    int lost;      ///< samples the thread did not answer
    int other;     ///< samples whose stack did not fit in the table
    fl_cpu_stack s[FL_CPU_STACKS];
} fl_cpu_stacks;

/// Empties `t`.
void fl_cpu_stacks_clear(fl_cpu_stacks *t);
/// Adds one sample (`n` <= 0: lost).
void fl_cpu_stacks_add(fl_cpu_stacks *t, const uintptr_t *pcs, int n, int by_fp);
/// Sorts the stacks most samples first.
void fl_cpu_stacks_sort(fl_cpu_stacks *t);

#endif
