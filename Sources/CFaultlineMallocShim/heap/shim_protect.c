#include "shim_protect.h"
#include "page_size.h"

#include <errno.h>
#include <stdatomic.h>
#include <sys/mman.h>

static atomic_int g_protected;

void shim_protect_range(const shim_block *b, uintptr_t *lo, uintptr_t *hi) {
    uintptr_t page = fl_page_size();
    uintptr_t user = (uintptr_t)shim_block_user(b);
    *lo = (user + page - 1) & ~(page - 1);
    *hi = (user + b->size) & ~(page - 1);
    if (*hi < *lo) *hi = *lo;
}

int shim_protect_freed(shim_block *b) {
    uintptr_t lo, hi;
    shim_protect_range(b, &lo, &hi);
    if (hi == lo) return 0;
    if (atomic_fetch_add_explicit(&g_protected, 1, memory_order_relaxed) >= SHIM_PROTECT_MAX) {
        atomic_fetch_sub_explicit(&g_protected, 1, memory_order_relaxed);
        return 0;
    }
    int saved = errno;  // free leaves errno alone
    int ok = mprotect((void *)lo, hi - lo, PROT_NONE) == 0;
    if (ok) madvise((void *)lo, hi - lo, MADV_DONTNEED);
    errno = saved;
    if (!ok) {
        atomic_fetch_sub_explicit(&g_protected, 1, memory_order_relaxed);
        return 0;
    }
    b->free_tid |= SHIM_FREE_PROTECTED;
    return 1;
}

int shim_protect_release(shim_block *b) {
    if (!(b->free_tid & SHIM_FREE_PROTECTED)) return 1;
    uintptr_t lo, hi;
    shim_protect_range(b, &lo, &hi);
    int saved = errno;
    if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE) == 0) {
        b->free_tid &= ~SHIM_FREE_PROTECTED;
        atomic_fetch_sub_explicit(&g_protected, 1, memory_order_relaxed);
    }
    errno = saved;
    return !(b->free_tid & SHIM_FREE_PROTECTED);
}
