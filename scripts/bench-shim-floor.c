// The floor under the malloc shim: an LD_PRELOAD library whose entry points
// do nothing but forward to glibc's (__libc_malloc and the rest), so what it
// costs over glibc alone is what interposition itself costs (a PLT call
// through the preloaded library, one more frame), with no allocator and no
// check. Built and measured by `scripts/bench-shim.sh --floor`; never part
// of Faultline.
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

#define FORWARD __attribute__((visibility("default"), noinline))

/// malloc(3), forwarded.
FORWARD void *malloc(size_t n) { return __libc_malloc(n); }
/// calloc(3), forwarded.
FORWARD void *calloc(size_t n, size_t size) { return __libc_calloc(n, size); }
/// realloc(3), forwarded.
FORWARD void *realloc(void *p, size_t n) { return __libc_realloc(p, n); }
/// free(3), forwarded.
FORWARD void free(void *p) { __libc_free(p); }
