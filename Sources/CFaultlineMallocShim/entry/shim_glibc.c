// glibc's malloc settings under the shim. mallopt runs after glibc has
// read its tunables and would override the user's: each setting is made
// only when the user did not choose it (MALLOC_ARENA_MAX,
// MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_, or the glibc.malloc
// tunable in GLIBC_TUNABLES), nor the program with its own mallopt call.
#include "interpose_next.h"
#include "shim_glibc.h"
#include "shim_heap.h"

#include <dlfcn.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

// glibc's mallopt: the shim's own calls must not reach its interposed one.
extern int __libc_mallopt(int, int);

#define DEFAULT_THRESHOLD (128u << 10)  // glibc's initial mmap threshold

size_t shim_glibc_mmap_threshold = SIZE_MAX;

// Who applies glibc's rule for freed mapped blocks (below). glibc turns it
// off for good once a threshold, the top pad or the mapping limit is set.
enum {
    RULE_OFF,    // the user set one of them: nobody
    RULE_GLIBC,  // glibc itself, until the shim sets the threshold
    RULE_SHIM,   // the shim, since it set the threshold
};
static int g_rule = RULE_OFF;
// The trim threshold is the shim's to set along with the mmap threshold.
static int g_trim_ours;
// What the program set with its own mallopt calls (sticky).
static int g_program_threshold, g_program_trim, g_program_rule_off;

// A glibc setting the user chose, through its old environment variable
// or the GLIBC_TUNABLES tunable.
static int user_set(const char *env, const char *tunable) {
    const char *tunables = getenv("GLIBC_TUNABLES");
    return getenv(env) || (tunables && strstr(tunables, tunable));
}

// Blocks over the arena's limit come from glibc, which gives every thread
// its own arena; each then holds its own share of the memory the quarantine
// releases, so peak RSS grew by the quarantine budget several times over
// (python3 with 3 threads: +51 MB over glibc alone, +24 MB with one arena;
// the synthetic benchmark with 4 threads went over its memory bound). One
// arena costs multi-threaded programs some contention on big blocks.
static void one_glibc_arena(void) {
    if (user_set("MALLOC_ARENA_MAX", "arena_max")) return;
    __libc_mallopt(M_ARENA_MAX, 1);
}

void shim_glibc_configure(void) {
    one_glibc_arena();
    if (user_set("MALLOC_MMAP_THRESHOLD_", "mmap_threshold") || __atomic_load_n(&g_program_threshold, __ATOMIC_RELAXED)) return;
    g_trim_ours = !user_set("MALLOC_TRIM_THRESHOLD_", "trim_threshold") && !__atomic_load_n(&g_program_trim, __ATOMIC_RELAXED);
    g_rule = g_trim_ours && !user_set("MALLOC_TOP_PAD_", "top_pad") && !user_set("MALLOC_MMAP_MAX_", "mmap_max") &&
                     !__atomic_load_n(&g_program_rule_off, __ATOMIC_RELAXED)
                 ? RULE_GLIBC
                 : RULE_OFF;
    __atomic_store_n(&shim_glibc_mmap_threshold, DEFAULT_THRESHOLD, __ATOMIC_RELAXED);
}

// Raises the mmap threshold to `to` (and the trim threshold to twice that,
// as glibc's rule pairs them), unless it is already that high.
static void raise_threshold(size_t to) {
    size_t was = __atomic_load_n(&shim_glibc_mmap_threshold, __ATOMIC_RELAXED);
    do {
        if (to <= was) return;
    } while (!__atomic_compare_exchange_n(&shim_glibc_mmap_threshold, &was, to, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    for (;;) {
        __libc_mallopt(M_MMAP_THRESHOLD, (int)to);
        if (__atomic_load_n(&g_trim_ours, __ATOMIC_RELAXED)) __libc_mallopt(M_TRIM_THRESHOLD, (int)(2 * to));
        // A raise by another thread between the exchange and these calls
        // may have been applied first: the highest one must be in force
        // (SIZE_MAX: the program has set its own since).
        size_t now = __atomic_load_n(&shim_glibc_mmap_threshold, __ATOMIC_RELAXED);
        if (now == to || now == SIZE_MAX) return;
        to = now;
    }
}

// glibc maps blocks of 128 KiB and more on their own. When it frees one
// bigger than its threshold, it raises the threshold to that size (up to
// 32 MiB) and its trim threshold to twice that, so a program that keeps
// allocating big blocks soon gets them from the heap, already faulted in;
// and it grows a mapped block in place with mremap. Under the shim a block
// reaches glibc's free only as it leaves the quarantine, and realloc
// always moves: a buffer grown by realloc step by step was a new mapping
// of the whole size at every step (zeroed and faulted in by the kernel,
// then unmapped as it left the quarantine), and the threshold never caught
// up, since what leaves the quarantine is always smaller than what is
// asked for next. bash reading 4 MB through $(cat) took 6.7 s instead of
// 0.03, 5.7 of them in the kernel. So a realloc that grows a block to the
// threshold or more first raises it above the new size (to a power of two,
// so a growing buffer makes a handful of mallopt calls, each taking the
// arena lock), and that block and the next steps come from the heap,
// whose top is kept between them (the trim threshold). Programs that never
// grow a big block keep glibc's own behaviour: a fixed 32 MiB threshold
// for everything cost swiftc 2 MB of peak RSS (freed big blocks leave holes
// in the heap that only blocks over the shim's arena classes can reuse).
void shim_glibc_realloc_grew(size_t chunk) {
    size_t to = DEFAULT_THRESHOLD;
    while (to <= chunk && to < SHIM_GLIBC_MMAP_THRESHOLD_MAX) to *= 2;
    // Setting the threshold turns glibc's rule off: the shim applies it from now on.
    int glibc = RULE_GLIBC;
    __atomic_compare_exchange_n(&g_rule, &glibc, RULE_SHIM, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    raise_threshold(to);
}

// glibc's rule, for a mapped chunk bigger than the threshold and under
// 32 MiB: glibc applies it itself in the free that follows while it is
// still on (the shim only follows the value), else the shim does (unless
// the user turned it off).
void shim_glibc_mapped_freed(size_t chunk) {
    int rule = __atomic_load_n(&g_rule, __ATOMIC_RELAXED);
    if (chunk >= SHIM_GLIBC_MMAP_THRESHOLD_MAX || rule == RULE_OFF) return;
    if (rule == RULE_SHIM) { raise_threshold(chunk); return; }
    size_t was = __atomic_load_n(&shim_glibc_mmap_threshold, __ATOMIC_RELAXED);
    while (chunk > was && !__atomic_compare_exchange_n(&shim_glibc_mmap_threshold, &was, chunk, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
}

typedef int (*mallopt_fn)(int, int);

/// mallopt(3): a threshold, top pad or mapping limit the program sets
/// itself is its own from then on; the shim stops raising the threshold
/// and applying glibc's rule, which would override it. Once the shim has
/// stepped aside, the call goes to the next definition (an allocator
/// preloaded after the shim may have its own).
__attribute__((visibility("default"))) int mallopt(int param, int value) {
    if (shim_mode == SHIM_MODE_PASS) {
        static mallopt_fn next;
        FL_NEXT_SLOT(next, "mallopt")
        mallopt_fn fn = __atomic_load_n(&next, __ATOMIC_ACQUIRE);
        if (!fn) {
            fn = (mallopt_fn)dlsym(RTLD_NEXT, "mallopt");
            if (!fn) fn = __libc_mallopt;
            __atomic_store_n(&next, fn, __ATOMIC_RELEASE);
        }
        return fn(param, value);
    }
    switch (param) {
    case M_MMAP_THRESHOLD:
        __atomic_store_n(&g_program_threshold, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&shim_glibc_mmap_threshold, SIZE_MAX, __ATOMIC_RELAXED);
        __atomic_store_n(&g_rule, RULE_OFF, __ATOMIC_RELAXED);
        break;
    case M_TRIM_THRESHOLD:
        __atomic_store_n(&g_program_trim, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&g_trim_ours, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&g_rule, RULE_OFF, __ATOMIC_RELAXED);
        break;
    case M_TOP_PAD:
    case M_MMAP_MAX:
        __atomic_store_n(&g_program_rule_off, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&g_rule, RULE_OFF, __ATOMIC_RELAXED);
        break;
    }
    return __libc_mallopt(param, value);
}
