// An in-place heapsort, defined for each element type by a macro. The leak
// scan (with the world stopped) and the leak report sort inside the shim,
// where glibc's qsort may not be called (it may allocate); the scan sorts up
// to millions of blocks, so the comparison is inlined, not called through a
// pointer.
#ifndef SHIM_HEAPSORT_H
#define SHIM_HEAPSORT_H

#include <stdint.h>

/// Defines `static void NAME(TYPE *a, uint64_t n)`, which sorts `a` so that
/// no element is BEFORE the one preceding it. BEFORE(x, y) is an expression
/// over two `const TYPE *`: 1 when x belongs earlier than y.
#define SHIM_DEFINE_HEAPSORT(NAME, TYPE, BEFORE)                                  \
    static void NAME##_sift(TYPE *a, uint64_t i, uint64_t n) {                    \
        for (;;) {                                                                \
            uint64_t c = 2 * i + 1;                                               \
            if (c >= n) return;                                                   \
            if (c + 1 < n && BEFORE(&a[c], &a[c + 1])) c++;                       \
            if (!BEFORE(&a[i], &a[c])) return;                                    \
            TYPE t = a[i]; a[i] = a[c]; a[c] = t;                                 \
            i = c;                                                                \
        }                                                                         \
    }                                                                             \
    static void NAME(TYPE *a, uint64_t n) {                                       \
        if (n < 2) return;                                                        \
        for (uint64_t i = n / 2; i-- > 0;) NAME##_sift(a, i, n);                  \
        for (uint64_t e = n - 1; e > 0; e--) {                                    \
            TYPE t = a[0]; a[0] = a[e]; a[e] = t;                                 \
            NAME##_sift(a, 0, e);                                                 \
        }                                                                         \
    }

#endif
