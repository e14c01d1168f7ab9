// The exported allocation entry points. Each passes its own frame address
// down so stacks start at the caller; tail calls are disabled so that
// frame is still there when the stack is walked.
#include "shim_bare.h"
#include "shim_heap.h"
#include "shim_live.h"
#include "shim_real.h"
#include "shim_thread.h"

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#define SHIM_EXPORT __attribute__((visibility("default"), disable_tail_calls))
#define SHIM_FRAME() ((uintptr_t)__builtin_frame_address(0))
#define SHIM_PASSING() __builtin_expect(shim_mode == SHIM_MODE_PASS, 0)

static inline int is_pow2(size_t x) { return x && !(x & (x - 1)); }

static size_t round_pow2(size_t x) {
    size_t p = 16;
    while (p < x && p <= (SIZE_MAX >> 1)) p <<= 1;
    return p;
}

static size_t page_size(void) {
    static size_t ps;
    if (!ps) ps = (size_t)sysconf(_SC_PAGESIZE);
    return ps;
}

// --- stepped aside: blocks handed out before the decision still have a
// header and go back to glibc; everything else belongs to another
// allocator: the one the call would have reached without the shim (see
// shim_real.c).

static inline const shim_next *pass_to(unsigned entry) {
    return shim_top_lacks & entry ? &shim_top_fns : &shim_next_fns;
}

static void pass_free(const shim_next *to, void *p) {
    uint32_t st = p ? shim_classify(p) : 0;
    if (st == SHIM_LIVE) {
        // Mark it first: a stale "live" tag left in memory the next
        // allocator hands out could later pass for a block of ours.
        shim_block *b = shim_block_from_user(p);
        shim_live_remove(b, shim_magic(b, SHIM_RELEASED));
        shim_real_free_block(b);
    }
    else if (st == 0) to->free(p);
    // A quarantined block freed again stays where it is.
}

static void *pass_realloc(const shim_next *to, void *p, size_t size) {
    if (!p || shim_classify(p) == 0) return to->realloc(p, size);
    // glibc's realloc(p, 0) frees and returns NULL.
    if (size == 0) { pass_free(to, p); return 0; }
    shim_block *b = shim_block_from_user(p);
    void *q = to->malloc(size);
    if (!q) return 0;
    __builtin_memcpy(q, p, b->size < size ? b->size : size);
    pass_free(to, p);
    return q;
}

// --- every check off: headerless blocks (shim_bare.h) ---------------------------
//
// No __builtin_expect here: a branch marked unlikely is split into a
// `.cold` function, and the SHIM_FRAME() of the call on it would be that
// function's frame (stacks then started at `free`, not at its caller).
//
// The common call with every check off goes no further than the arena's
// thread cache: no guard, mode or option is read beyond the one decided
// word, and FAULTLINE_GUARD=sample:N adds its thread-local countdown
// (GWP-ASan's), the turn itself taken by shim_alloc.

/// A headerless block of `size`, or NULL for the usual path.
static inline void *bare_alloc(size_t size, int zero) {
    if (!shim_bare_on() || size > SHIM_ARENA_MAX_BLOCK) return 0;
    if (shim_bare_sampling) {
        uint32_t left = shim_self.guard_countdown;
        if (left <= 1) return 0;  // the sample's turn (or its first draw)
        shim_self.guard_countdown = left - 1;
    }
    return shim_bare_alloc(size, zero);
}

// --- entry points --------------------------------------------------------------

/// malloc(3) with a header, 0xAA fill and the allocation stack.
SHIM_EXPORT void *malloc(size_t size) {
    if (SHIM_PASSING()) return pass_to(SHIM_ENTRY_MALLOC)->malloc(size);
    void *p = bare_alloc(size, 0);
    if (p) return p;
    return shim_alloc(size, SHIM_ALIGN_MALLOC, 0, SHIM_KIND_MALLOC, SHIM_FRAME());
}

/// free(3): scribble with 0x55 and quarantine; reports double and invalid frees.
SHIM_EXPORT void free(void *p) {
    if (SHIM_PASSING()) { pass_free(pass_to(SHIM_ENTRY_FREE), p); return; }
    if (shim_bare_owns(p)) { shim_bare_free(p, "free"); return; }
    shim_free(p, SHIM_KIND_MALLOC, SHIM_FRAME());
}

/// calloc(3): zeroed, no fill.
SHIM_EXPORT void *calloc(size_t n, size_t size) {
    if (SHIM_PASSING()) return pass_to(SHIM_ENTRY_CALLOC)->calloc(n, size);
    size_t total;
    if (__builtin_mul_overflow(n, size, &total)) { errno = ENOMEM; return 0; }
    void *p = bare_alloc(total, 1);
    if (p) return p;
    return shim_alloc(total, SHIM_ALIGN_MALLOC, 1, SHIM_KIND_MALLOC, SHIM_FRAME());
}

/// realloc(3): always moves the block; the old one is quarantined.
SHIM_EXPORT void *realloc(void *p, size_t size) {
    if (SHIM_PASSING()) return pass_realloc(pass_to(SHIM_ENTRY_REALLOC), p, size);
    return shim_realloc(p, size, SHIM_FRAME());
}

/// reallocarray(3).
SHIM_EXPORT void *reallocarray(void *p, size_t n, size_t size) {
    size_t total;
    if (__builtin_mul_overflow(n, size, &total)) { errno = ENOMEM; return 0; }
    if (SHIM_PASSING()) return pass_realloc(pass_to(SHIM_ENTRY_REALLOCARRAY), p, total);
    return shim_realloc(p, total, SHIM_FRAME());
}

/// posix_memalign(3): EINVAL unless a power of two multiple of sizeof(void *).
SHIM_EXPORT int posix_memalign(void **out, size_t align, size_t size) {
    if (SHIM_PASSING()) return pass_to(SHIM_ENTRY_POSIX_MEMALIGN)->posix_memalign(out, align, size);
    if (!is_pow2(align) || align % sizeof(void *)) return EINVAL;
    int saved = errno;
    void *p = shim_alloc(size, align, 0, SHIM_KIND_MALLOC, SHIM_FRAME());
    errno = saved;
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

// glibc 2.36 rounds an alignment that is not a power of two up to one; one
// above 2^63 has none to round to (EINVAL), 2^63 itself fits no block (ENOMEM).
static void *aligned(size_t align, size_t size, uintptr_t fp) {
    if (align > (SIZE_MAX >> 1) + 1) { errno = EINVAL; return 0; }
    if (!is_pow2(align)) align = round_pow2(align);
    return shim_alloc(size, align, 0, SHIM_KIND_MALLOC, fp);
}

/// aligned_alloc(3).
SHIM_EXPORT void *aligned_alloc(size_t align, size_t size) {
    if (SHIM_PASSING()) {
        const shim_next *to = pass_to(SHIM_ENTRY_ALIGNED_ALLOC);
        return to->aligned_alloc ? to->aligned_alloc(align, size) : to->memalign(align, size);
    }
    return aligned(align, size, SHIM_FRAME());
}

/// memalign(3).
SHIM_EXPORT void *memalign(size_t align, size_t size) {
    if (SHIM_PASSING()) return pass_to(SHIM_ENTRY_MEMALIGN)->memalign(align, size);
    return aligned(align, size, SHIM_FRAME());
}

/// valloc(3): page-aligned.
SHIM_EXPORT void *valloc(size_t size) {
    if (SHIM_PASSING()) {
        const shim_next *to = pass_to(SHIM_ENTRY_VALLOC);
        return to->valloc ? to->valloc(size) : to->memalign(page_size(), size);
    }
    return shim_alloc(size, page_size(), 0, SHIM_KIND_MALLOC, SHIM_FRAME());
}

/// pvalloc(3): page-aligned, size rounded up to whole pages.
SHIM_EXPORT void *pvalloc(size_t size) {
    size_t ps = page_size();
    size_t rounded = size == 0 ? ps : (size + ps - 1) & ~(ps - 1);
    if (rounded < size) { errno = ENOMEM; return 0; }
    if (SHIM_PASSING()) {
        const shim_next *to = pass_to(SHIM_ENTRY_PVALLOC);
        return to->pvalloc ? to->pvalloc(size) : to->memalign(ps, rounded);
    }
    return shim_alloc(rounded, ps, 0, SHIM_KIND_MALLOC, SHIM_FRAME());
}

/// malloc_usable_size(3): exactly the size asked for (so code that trusts
/// it stays inside the block).
SHIM_EXPORT size_t malloc_usable_size(void *p) {
    if (SHIM_PASSING() && (!p || shim_classify(p) == 0)) return pass_to(SHIM_ENTRY_USABLE_SIZE)->malloc_usable_size(p);
    return shim_usable_size(p);
}

/// cfree: the old alias of free that glibc still exports for old binaries.
SHIM_EXPORT void cfree(void *p) {
    if (SHIM_PASSING()) { pass_free(pass_to(SHIM_ENTRY_CFREE), p); return; }
    if (shim_bare_owns(p)) { shim_bare_free(p, "free"); return; }
    shim_free(p, SHIM_KIND_MALLOC, SHIM_FRAME());
}
