#include "tool_log.h"
#include "shim_deepbind.h"
#include "shim_arena.h"
#include "shim_find.h"
#include "shim_heap.h"
#include "shim_saferead.h"
#include "page_size.h"
#include "sigsafe.h"

#include <dlfcn.h>
#include <stdint.h>

// glibc's chunk layout (malloc/malloc.c): the size word 8 bytes in front
// of the pointer, its low bits flags.
#define PREV_INUSE 1u
#define IS_MMAPPED 2u
#define NON_MAIN_ARENA 4u

static int g_deepbind_seen;

typedef void *(*dlopen_fn)(const char *, int);
static dlopen_fn g_real_dlopen;

static void say_deepbind(const char *file) {
    char line[768];
    size_t n = fl_strlcpy(line, "faultline: malloc shim: ", sizeof line);
    n += fl_strlcpy(line + n, file, sizeof line - n);
    n += fl_strlcpy(line + n, " is loaded with RTLD_DEEPBIND: its own malloc and free are glibc's, not the shim's "
                              "(its blocks are not checked, and a block of the program's that it frees makes glibc abort); "
                              "its blocks freed by the program go to glibc", sizeof line - n);
    if (n < sizeof line - 1) line[n++] = '\n';
    fl_log_write(line, n);
}

/// dlopen(3), seen by the shim for RTLD_DEEPBIND. The real dlopen is
/// reached by a tail call, so it sees the program's return address as its
/// caller: the library search uses the caller's RUNPATH, which a call from
/// inside the shim would have replaced with the shim's.
__attribute__((visibility("default"))) void *dlopen(const char *file, int mode) {
    dlopen_fn real = __atomic_load_n(&g_real_dlopen, __ATOMIC_ACQUIRE);
    if (!real) {
        real = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
        if (!real) real = (dlopen_fn)dlvsym(RTLD_NEXT, "dlopen", "GLIBC_2.2.5");
        __atomic_store_n(&g_real_dlopen, real, __ATOMIC_RELEASE);
    }
    if ((mode & RTLD_DEEPBIND) && file && shim_mode == SHIM_MODE_DETECT && __atomic_load_n(&shim_ready, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&g_deepbind_seen, 1, __ATOMIC_RELEASE);
        say_deepbind(file);
    }
    __attribute__((musttail)) return real(file, mode);
}

int shim_deepbind_seen(void) { return __atomic_load_n(&g_deepbind_seen, __ATOMIC_ACQUIRE); }

// A main-arena chunk in use: inside the main heap, with the next chunk's
// PREV_INUSE bit set. glibc gives its chunks 16-byte sizes of at least 32.
static int main_arena_chunk(uintptr_t chunk, uint64_t size, size_t *usable) {
    if (!shim_heap_holds(chunk, size + 16)) return 0;
    uint64_t next;
    if (shim_safe_read((const void *)(chunk + size + 8), &next, sizeof next) != 0) return 0;
    if (!(next & PREV_INUSE) || (next & ~(uint64_t)7) < 16) return 0;
    *usable = size - 8;  // an in-use chunk also owns the next chunk's first word
    return 1;
}

// A chunk glibc mapped on its own: glibc's own test in munmap_chunk (the
// mapping starts on a page and is whole pages), and its last byte mapped.
static int mapped_chunk(uintptr_t p, uintptr_t chunk, uint64_t prev, uint64_t size, size_t *usable) {
    uintptr_t page_mask = fl_page_size() - 1;
    uintptr_t off = p & page_mask;
    if (prev > chunk || (((chunk - prev) | (prev + size)) & page_mask) || (off & (off - 1))) return 0;
    char last;
    if (shim_safe_read((const void *)(chunk + size - 1), &last, 1) != 0) return 0;
    *usable = size - 16;
    return 1;
}

int shim_deepbind_glibc_block(const void *p, size_t *usable) {
    if (!__atomic_load_n(&g_deepbind_seen, __ATOMIC_ACQUIRE)) return 0;
    uintptr_t a = (uintptr_t)p;
    if ((a & 15) || a < 4096 || shim_arena_owns(p)) return 0;
    uint64_t hdr[2];  // prev_size, size and flags
    if (shim_safe_read((const void *)(a - 16), hdr, sizeof hdr) != 0) return 0;
    uint64_t size = hdr[1] & ~(uint64_t)7;
    if (size < 32 || (size & 15) || size > (1ull << 46)) return 0;
    int ok = hdr[1] & IS_MMAPPED ? mapped_chunk(a, a - 16, hdr[0], size, usable)
           : hdr[1] & NON_MAIN_ARENA ? 0  // another arena: only with MALLOC_ARENA_MAX set; not checked
           : main_arena_chunk(a - 16, size, usable);
    if (!ok) return 0;
    // Not a pointer into one of the shim's own blocks (program data there
    // can look like a chunk header): that stays an invalid free. In the
    // heap, a block's header can be as far back as the largest block the
    // shim had from it (up to 32 MiB once glibc's mmap threshold rose).
    shim_found f;
    size_t largest = shim_heap_largest_block();
    size_t window = largest > SHIM_FIND_WINDOW && shim_heap_holds(a, 1) ? largest : SHIM_FIND_WINDOW;
    return !shim_find_block(a, window, &f);
}
