#include "shim_heap.h"
#include "shim_stack.h"
#include "shim_arena.h"
#include "shim_arena_class.h"
#include "shim_bare.h"
#include "shim_live.h"
#include "shim_config.h"
#include "shim_protect.h"
#include "shim_redzone.h"
#include "shim_released.h"
#include "shim_deepbind.h"
#include "shim_depot.h"
#include "shim_find.h"
#include "shim_free_slot.h"
#include "shim_glibc.h"
#include "shim_guard.h"
#include "shim_quarantine.h"
#include "shim_real.h"
#include "shim_report.h"
#include "shim_saferead.h"
#include "shim_stack.h"
#include "shim_stack_cache.h"
#include "shim_thread.h"
#include "shim_unmapped.h"
#include "page_size.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int shim_mode = SHIM_MODE_DETECT;
int shim_ready;

// Envelope of every real allocation made: a pointer outside it cannot be
// ours, and is rejected without reading the memory in front of it.
static _Atomic uintptr_t g_lo = UINTPTR_MAX;
static _Atomic uintptr_t g_hi;

void shim_heap_range(uintptr_t *lo, uintptr_t *hi) {
    *lo = atomic_load_explicit(&g_lo, memory_order_relaxed);
    *hi = atomic_load_explicit(&g_hi, memory_order_relaxed);
    uintptr_t alo, ahi;
    shim_arena_range(&alo, &ahi);
    if (alo && alo < *lo) *lo = alo;
    if (ahi > *hi) *hi = ahi;
}

static inline void note_range(uintptr_t start, uintptr_t end) {
    uintptr_t lo = atomic_load_explicit(&g_lo, memory_order_relaxed);
    while (start < lo && !atomic_compare_exchange_weak_explicit(&g_lo, &lo, start, memory_order_relaxed, memory_order_relaxed)) {}
    uintptr_t hi = atomic_load_explicit(&g_hi, memory_order_relaxed);
    while (end > hi && !atomic_compare_exchange_weak_explicit(&g_hi, &hi, end, memory_order_relaxed, memory_order_relaxed)) {}
}

// 1 when `from`, a libc wrapper's frame (shim_libc_callers.c), is still
// live: on this thread's own stack above the allocator's frame `fp`, and
// holding the return address the wrapper saw. A program that left the
// wrapper by longjmp (a SIGALRM timeout out of getaddrinfo or getline)
// left its mark behind; every later stack on the thread would start at a
// dead frame. Asks for the stack bounds: call with the guard held.
static int caller_frame_live(uintptr_t from, uintptr_t fp) {
    return from > fp && shim_thread_bounds() && from >= shim_self.stack_lo && shim_self.stack_hi - from >= 16 &&
           ((uintptr_t *)from)[1] == shim_self.caller_ret;
}

// Records the stack of the allocator call at `fp` (0 when stacks are off,
// before init, or inside the shim itself). Inside a libc function wrapped
// by shim_libc_callers.c, an allocation libc makes starts its stack at
// that function's caller; one made from elsewhere meanwhile (a signal
// handler, a callback libc runs: fopencookie's read function) keeps its
// own stack.
static inline uint32_t capture(uintptr_t fp) {
    if (!shim_cfg.stacks || !shim_ready || shim_self.depth > 0) return 0;
    shim_self.depth++;
    uintptr_t from = shim_self.caller_fp;
    if (__builtin_expect(from != 0, 0)) {
        if (!caller_frame_live(from, fp)) from = shim_self.caller_fp = 0;
        else if (!shim_in_libc(((uintptr_t *)fp)[1])) from = 0;  // not libc's allocation: the mark stays for libc's
    }
    uint32_t id = shim_stack_record(from ? from : fp);
    shim_self.depth--;
    return id;
}

static inline size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

// The main heap's range as glibc has grown it ([g_brk_lo, g_brk_hi)): it
// gives its top back to the kernel (sbrk with a negative increment) when
// enough of it is free.
static _Atomic uintptr_t g_brk_lo, g_brk_hi;

// glibc's current break, which sbrk(0) returns: read directly, it is a
// load instead of a call on every free that checks it.
extern void *__curbrk;

static inline uintptr_t current_brk(void) {
    uintptr_t now = (uintptr_t)__atomic_load_n(&__curbrk, __ATOMIC_RELAXED);
    return now ? now : (uintptr_t)sbrk(0);
}

// Raises g_brk_hi to the current break; the first call (before glibc's
// first allocation through the shim) also sets g_brk_lo. A plain load and
// compare after every other allocation: the compare-and-swaps run only
// when the heap grew.
static void note_brk(void) {
    uintptr_t now = current_brk();
    if (now == (uintptr_t)-1) return;
    if (__builtin_expect(!atomic_load_explicit(&g_brk_lo, memory_order_relaxed), 0)) {
        uintptr_t lo = 0;
        atomic_compare_exchange_strong_explicit(&g_brk_lo, &lo, now, memory_order_relaxed, memory_order_relaxed);
    }
    uintptr_t hi = atomic_load_explicit(&g_brk_hi, memory_order_relaxed);
    while (now > hi && !atomic_compare_exchange_weak_explicit(&g_brk_hi, &hi, now, memory_order_relaxed, memory_order_relaxed)) {}
}

// True when the header in front of `a` (not an arena pointer) may lie in
// memory glibc has unmapped since, so it must be read without faulting:
// - the header starts on the page before (glibc's mapped chunks put the
//   pointer 48 or 64 bytes into a fresh mapping, an aligned one a page in);
// - the offset into the page is one a mapped chunk's pointer has (64, or an
//   alignment up to 2 KiB); glibc unmaps those chunks when they are freed;
// - it lies above the main heap's current top, which glibc has lowered.
// Any other pointer is read directly: free's fast path takes no syscall.
// Nor does a header at such an offset inside the main heap, below its top
// (mapped: glibc grows and shrinks it only at the top): one big block in
// about 100 of the mix workload's was read through the kernel for that.
static inline int may_be_unmapped(uintptr_t a) {
    uintptr_t off = a & 4095;
    if (off <= 64 || (off <= 2048 && (off & (off - 1)) == 0)) return !shim_heap_holds(a - SHIM_HEADER_SIZE, SHIM_HEADER_SIZE);
    return shim_heap_trimmed(a - SHIM_HEADER_SIZE);
}

int shim_heap_trimmed(uintptr_t a) {
    return a >= atomic_load_explicit(&g_brk_lo, memory_order_relaxed) && a < atomic_load_explicit(&g_brk_hi, memory_order_relaxed) &&
           a + SHIM_HEADER_SIZE > current_brk();
}

// The largest block the shim has had from glibc's heap, once one was
// bigger than SHIM_FIND_WINDOW (0 before): how far back from an address in
// the heap the header of a block holding it can be.
static _Atomic size_t g_heap_largest;

size_t shim_heap_largest_block(void) { return atomic_load_explicit(&g_heap_largest, memory_order_relaxed); }

static void note_heap_block(size_t total) {
    size_t was = atomic_load_explicit(&g_heap_largest, memory_order_relaxed);
    while (total > was && !atomic_compare_exchange_weak_explicit(&g_heap_largest, &was, total, memory_order_relaxed, memory_order_relaxed)) {}
}

int shim_heap_holds(uintptr_t a, size_t n) {
    uintptr_t lo = atomic_load_explicit(&g_brk_lo, memory_order_relaxed);
    return lo && a >= lo && a + n >= a && a + n <= current_brk();
}

// The real allocation for `total` bytes: an arena block when it fits (16
// alignment), else glibc's. Zeroed when `zero`.
static void *real_alloc(size_t total, int small, int zero) {
    int fresh;
    void *real = small ? shim_arena_alloc(total, &fresh) : 0;
    if (real) {
        // A write into the slot while it was free (shim_free_slot.h).
        shim_free_slot_check(real, fresh);
        // Fresh arena pages read as zeros; a reused block has old patterns.
        if (zero && !fresh) memset(real, 0, total);
        return real;
    }
    // The heap's start: the break before glibc's first growth of it.
    if (__builtin_expect(!atomic_load_explicit(&g_brk_lo, memory_order_relaxed), 0)) note_brk();
    real = zero ? __libc_calloc(1, total) : __libc_malloc(total);
    if (real) {
        note_range((uintptr_t)real, (uintptr_t)real + total);
        note_brk();
        if (__builtin_expect(total > SHIM_FIND_WINDOW, 0) && !shim_glibc_chunk_is_mapped(real)) note_heap_block(total);
    }
    return real;
}

// Allocates with a known stack id; `fill_from` is where the 0xAA fill starts.
static void *alloc_block(size_t size, size_t align, int zero, unsigned kind, uint32_t stack, size_t fill_from) {
    size_t pad = align > 16 ? align : 0;
    // Every check off: a small block has no header (shim_bare.h). Also for
    // realloc's new block and a sampled block the guard could not place,
    // so no small block with a header is made once the decision is taken
    // (a slot a headerless block freed holds no free-slot pattern).
    if (pad == 0 && shim_bare_on()) {
        void *p = shim_bare_alloc(size, zero);
        if (p) return p;
    }
    // Read once: the link must exist exactly when shim_live_insert links it.
    int linked = shim_live_on;
    // FAULTLINE_GUARD=all: every block against a guard page (the sample's
    // are chosen in shim_alloc).
    if (__builtin_expect(shim_guard_lo != 0, 0) && shim_cfg.guard == SHIM_GUARD_ALL && shim_ready) {
        void *g = shim_guard_alloc(size, align, zero, kind, stack, fill_from, linked);
        if (g) return g;
    }
    size_t link = linked ? SHIM_LINK_SIZE : 0;
    if (size > SIZE_MAX - SHIM_HEADER_SIZE - SHIM_LINK_SIZE - 32 - pad || size >= (1ull << 47) || pad > (1ull << 31)) { errno = ENOMEM; return 0; }
    size_t total = size + shim_redzone_span(size) + SHIM_HEADER_SIZE + link + pad;
    void *real = real_alloc(total, pad == 0, zero);
    if (!real) return 0;
    uintptr_t user = (uintptr_t)real + link + SHIM_HEADER_SIZE;
    if (pad) user = (user + align - 1) & ~(uintptr_t)(align - 1);
    // A block glibc unmapped or reused earlier may have had this address.
    if (!shim_arena_owns(real)) {
        if (shim_glibc_chunk_is_mapped(real) || size >= SHIM_UNMAPPED_KEEP_FROM) shim_unmapped_forget((void *)user);
        shim_released_forget((void *)user);
    }
    shim_block *b = shim_block_from_user((void *)user);
    shim_block_begin(b, size, kind, stack, shim_tid(), (uintptr_t)real);
    shim_redzone_fill(b);
    if (!zero) {
        size_t end = min_size(size, shim_cfg.fill_limit);
        if (end > fill_from) shim_pattern_set((char *)user + fill_from, SHIM_FILL_BYTE, end - fill_from);
    }
    // Inside the guard after start-up, the shim's own machinery is
    // allocating (libunwind's thread-local storage on a thread's first
    // unwind, which the leak scan found unreferenced): not the program's.
    uint32_t live = shim_magic(b, SHIM_LIVE);
    if (linked && !(shim_self.depth > 0 && shim_ready)) shim_live_insert(b, live);
    else {
        if (linked) shim_live_leave_out(b);
        __atomic_store_n(&b->magic, live, __ATOMIC_RELEASE);
    }
    return (void *)user;
}

void *shim_alloc(size_t size, size_t align, int zero, unsigned kind, uintptr_t fp) {
    // FAULTLINE_GUARD=sample:N: the sampled block has stacks and guard
    // pages; every other one takes the plain path, without stacks.
    if (__builtin_expect(shim_guard_lo != 0, 0) && shim_cfg.guard == SHIM_GUARD_SAMPLE) {
        if (shim_ready && shim_guard_wanted()) {
            void *g = shim_guard_alloc(size, align, zero, kind, capture(fp), 0, shim_live_on);
            if (g) return g;
        }
        return alloc_block(size, align, zero, kind, 0, 0);
    }
    return alloc_block(size, align, zero, kind, capture(fp), 0);
}

uint32_t shim_classify(const void *p) {
    uintptr_t a = (uintptr_t)p;
    // A guarded block's state is in the guard table: a freed one's pages
    // cannot be read (and a small one may end exactly at its guard page,
    // aligned only as its size needs).
    if (__builtin_expect(shim_guard_owns(p), 0)) return shim_guard_state(p);
    if (a & 15) return 0;
    const shim_block *b = shim_block_from_user(p);
    uint32_t magic;
    if (shim_arena_owns(p)) {
        // Arena blocks are exact: the header must be in a writable part. A
        // headerless block (shim_bare.h) has none: the bytes in front are
        // the slot before's.
        if (!shim_arena_readable_before(p, SHIM_HEADER_SIZE) || shim_arena_at_slot_start(p)) return 0;
        magic = __atomic_load_n(&b->magic, __ATOMIC_ACQUIRE);
    } else if (a < atomic_load_explicit(&g_lo, memory_order_relaxed) + SHIM_HEADER_SIZE ||
               a > atomic_load_explicit(&g_hi, memory_order_relaxed)) {
        return 0;
    } else if (may_be_unmapped(a)) {
        // Unreadable, or mapped again for something else: a block of ours
        // only if glibc unmapped it when the quarantine released it.
        if (shim_safe_read(&b->magic, &magic, sizeof magic) != 0) magic = 0;
        uint32_t st = shim_state_of(b, magic);
        if (st != SHIM_LIVE && st != SHIM_QUARANTINED && st != SHIM_RELEASED) return shim_unmapped_find(p, 0) ? SHIM_RELEASED : 0;
        return st;
    } else {
        magic = __atomic_load_n(&b->magic, __ATOMIC_ACQUIRE);
    }
    uint32_t st = shim_state_of(b, magic);
    if (st == SHIM_LIVE || st == SHIM_QUARANTINED || st == SHIM_RELEASED) return st;
    // A big block released into glibc's heap: its header may be overwritten
    // (glibc's free-chunk links, or the next block's bytes), but a copy is kept.
    return shim_unmapped_find(p, 0) ? SHIM_RELEASED : 0;
}

// Zeroes a freed block's bytes past the scribble limit, for the leak scan:
// quarantined blocks and glibc's heap outside live blocks (free chunks
// included) are read as roots, and a tail keeping the program's old
// pointers made lost blocks "still reachable" (groff's freed tables;
// leaks.freed-tail-no-root). Whole pages of a long tail are dropped
// instead of written (they read as zeros).
static void clear_tail(void *p, size_t from, size_t size) {
    uintptr_t lo = (uintptr_t)p + from, hi = (uintptr_t)p + size;
    size_t page = fl_page_size();
    if (hi - lo >= 16 * page) {
        uintptr_t plo = (lo + page - 1) & ~(uintptr_t)(page - 1), phi = hi & ~(uintptr_t)(page - 1);
        int saved = errno;  // free leaves errno alone
        int dropped = madvise((void *)plo, phi - plo, MADV_DONTNEED) == 0;
        errno = saved;
        if (dropped) {
            __builtin_memset((void *)lo, 0, plo - lo);
            __builtin_memset((void *)phi, 0, hi - phi);
            return;
        }
    }
    __builtin_memset((void *)lo, 0, hi - lo);
}

// The leak list's links in front of `broken` were overwritten; found while
// freeing `b` (itself, or its neighbour in the list).
static __attribute__((noinline, cold)) void links_overwritten(const shim_block *b, const shim_block *broken) {
    shim_block copy;
    uint32_t st = broken == b ? SHIM_QUARANTINED : SHIM_LIVE;
    if (broken != b && (shim_safe_read(broken, &copy, sizeof copy) != 0 || copy.check != shim_block_checksum_at(&copy, broken))) {
        shim_report_heap_underflow(0, shim_block_user(broken), st, "live_link", 0, 0, 0, 0, "free");
        return;
    }
    if (broken == b) copy = *b;
    shim_report_heap_underflow(&copy, shim_block_user(broken), st, "live_link", 0, 0, 0, 0, "free");
}

// Marks a live block freed and quarantines it. Returns 0, or the state that
// made it fail. The state changes with a plain store, not a compare-and-swap
// (which cost more than the rest of free): two threads freeing the same
// block at the same instant may both pass; the release step tolerates the
// duplicate (it releases only blocks still marked quarantined).
static uint32_t quarantine(void *p, uint32_t stack) {
    shim_block *b = shim_block_from_user(p);
    uint32_t magic = __atomic_load_n(&b->magic, __ATOMIC_RELAXED);
    if (magic != shim_magic(b, SHIM_LIVE)) return shim_state_of(b, magic);
    const shim_block *broken = shim_live_remove(b, shim_magic(b, SHIM_QUARANTINED));
    b->free_stack = stack;
    b->free_tid = shim_tid();
    if (__builtin_expect(shim_guard_owns(p), 0)) {
        if (__builtin_expect(broken != 0, 0)) links_overwritten(b, broken);
        shim_guard_free(b);  // its pages PROT_NONE: not scribbled, not quarantined
        return 0;
    }
    // A block with whole pages inside: those are protected, the partial
    // pages at both ends scribbled whole (shim_scribble_changed checks them).
    if (__builtin_expect(b->size >= SHIM_PROTECT_FROM, 0) && shim_cfg.scribble_limit && shim_protect_freed(b)) {
        uintptr_t lo, hi, user = (uintptr_t)p;
        shim_protect_range(b, &lo, &hi);
        memset(p, SHIM_SCRIBBLE_BYTE, lo - user);
        memset((void *)hi, SHIM_SCRIBBLE_BYTE, user + b->size - hi);
    } else {
        size_t n = min_size(b->size, shim_cfg.scribble_limit);
        shim_pattern_set(p, SHIM_SCRIBBLE_BYTE, n);
        if (shim_cfg.leak_tracking && b->size > n) clear_tail(p, n, b->size);
    }
    if (__builtin_expect(broken != 0, 0)) links_overwritten(b, broken);
    shim_quarantine_put(b);
    return 0;
}

// A header in front of `p` whose checksum fails, or whose state tag was
// overwritten while the rest is whole, or (in the arena, where a block's
// place is exact) a pointer at a block's start whose header is gone: an
// underflow wrote over it. Reported, and the block is never followed nor
// given back. 1 when so.
static __attribute__((noinline, cold)) int corrupt_header(const void *p, const char *operation) {
    uintptr_t a = (uintptr_t)p;
    if (a & 15) return 0;
    shim_block copy;
    if (shim_safe_read(shim_block_from_user(p), &copy, sizeof copy) != 0) return 0;
    uint32_t st;
    switch (shim_header_read(&copy, shim_block_from_user(p), (1ull << 40) - 1, &st)) {
    case SHIM_HEADER_WHOLE: return 0;  // not a corruption
    case SHIM_HEADER_UNTAGGED: shim_report_heap_underflow(&copy, p, SHIM_LIVE, "header", 0, 0, 0, 0, operation); return 1;
    case SHIM_HEADER_UNSEALED: shim_report_heap_underflow(0, p, st, "header", 0, 0, 0, 0, operation); return 1;
    case SHIM_HEADER_FOREIGN: break;
    }
    if (shim_arena_owns(p) && shim_arena_readable_before(p, SHIM_HEADER_SIZE)) {
        // Slots start afresh in each 64 KiB span (shim_arena_at_slot_start):
        // counted from the region's start, a class that does not divide the
        // span was off past its first span (heap-underflow-header-wiped-far).
        uintptr_t at = ((a - shim_arena_base) & 0xffffu) % shim_arena_block_size(p);
        shim_found f;
        // Where a block's user bytes start in its slot, and not inside a
        // live block's bytes (an interior pointer of a bigger block).
        if (at == SHIM_HEADER_SIZE + (shim_live_on ? SHIM_LINK_SIZE : 0) &&
            !(shim_find_block(a, SHIM_FIND_WINDOW, &f) && f.state == SHIM_LIVE)) {
            shim_report_heap_underflow(0, p, 0, "header", 0, 0, 0, 0, operation);
            return 1;
        }
    }
    return 0;
}

// A glibc block released from the quarantine whose header glibc has
// overwritten since, with nothing allocated at its address again and no
// live block holding it (a bigger block glibc made of its memory).
static int released_recently(const void *p) {
    uint32_t as, fs;
    if (!shim_released_find(p, &as, &fs)) return 0;
    shim_found f;
    return !(shim_find_block((uintptr_t)p, SHIM_FIND_WINDOW, &f) && f.state == SHIM_LIVE);
}

static void bad_free(const void *p, uint32_t state, const char *operation) {
    if (state == SHIM_QUARANTINED || state == SHIM_RELEASED) shim_report_double_free(p, state, operation);
    else if (corrupt_header(p, operation)) return;
    else if (released_recently(p)) shim_report_double_free(p, SHIM_RELEASED, operation);
    else shim_report_invalid_free(p, operation);
}

// A live block's header or red zone found changed as it is released
// (`operation`): reported; 1 when the block must not be followed (its
// header is not whole), 0 to go on releasing it.
static __attribute__((noinline, cold)) int damaged(void *p, const char *operation) {
    shim_block *b = shim_block_from_user(p);
    if (!shim_block_sealed(b)) {
        shim_report_heap_underflow(0, p, SHIM_LIVE, "header", 0, 0, 0, 0, operation);
        return 1;
    }
    shim_redzone_report(b, SHIM_LIVE, operation);
    return 0;
}

static inline int whole(const shim_block *b) { return shim_block_sealed(b) && shim_redzone_intact(b); }

// The operation that releases blocks of `kind`, as reports name it.
static const char *release_name(unsigned kind) {
    return kind == SHIM_KIND_NEW ? "operator delete" : kind == SHIM_KIND_NEW_ARRAY ? "operator delete[]" : "free";
}

// A live block allocated as another kind than `operation` releases
// (FAULTLINE_ALLOC_DEALLOC_MISMATCH=0: nothing). Returns when the report
// does not halt; the release then goes on as usual (the shim's blocks are
// all alike underneath).
static __attribute__((noinline, cold)) void mismatch(const void *p, const char *operation) {
    if (shim_cfg.alloc_dealloc_mismatch) shim_report_alloc_dealloc_mismatch(p, operation);
}

void shim_check_release(void *p, unsigned kind) {
    if (shim_bare_owns(p)) return;  // no kind kept: every check is off
    if (shim_classify(p) == SHIM_LIVE && shim_block_from_user(p)->alloc_kind != kind) mismatch(p, release_name(kind));
}

// A delete given `size` (0: an unsized form) and `align` (0: an unaligned
// form) for a block the shim's own new made with another size or alignment
// (FAULTLINE_NEW_DELETE_TYPE_MISMATCH=0: nothing). Reported, then freed.
static __attribute__((noinline, cold)) void type_mismatch(const void *p, unsigned kind, size_t size, size_t align) {
    if (shim_cfg.new_delete_type_mismatch) shim_report_new_delete_type_mismatch(p, release_name(kind), size, align);
}

// 1 when a delete given `size` and `align` does not fit block `b`, which
// it releases as the kind it was allocated as: only blocks whose size and
// alignment are known (new_align), and a size only when delete has one.
static inline int wrong_type(const shim_block *b, size_t size, size_t align) {
    return b->new_align && ((size && size != b->size) || shim_new_align_code(align) != b->new_align);
}

// FAULTLINE_GUARD=sample:N: a block the sample left unguarded, whose free
// records no stack either (its allocation recorded none; walking every
// free cost the sampled mode 20 % on the uniform workload).
static inline int sampled_out(const void *p) {
    return __builtin_expect(shim_guard_lo != 0, 0) && shim_cfg.guard == SHIM_GUARD_SAMPLE && !shim_guard_owns(p);
}

// Frees `p` as `kind`; `typed` for a C++ delete, whose size and alignment
// are checked (free, and realloc's free, have none to give).
static inline void release(void *p, unsigned kind, int typed, size_t size, size_t align, uintptr_t fp) {
    if (!p) return;
    if (shim_bare_owns(p)) {
        shim_bare_free(p, release_name(kind));
        return;
    }
    shim_redzone_prefetch(p);  // in flight while the header is read
    uint32_t st = shim_classify(p);
    if (__builtin_expect(st == SHIM_LIVE, 1)) {
        const shim_block *b = shim_block_from_user(p);
        if (__builtin_expect(!whole(b), 0) && damaged(p, release_name(kind))) return;
        if (__builtin_expect(b->alloc_kind != kind, 0)) mismatch(p, release_name(kind));
        else if (typed && __builtin_expect(wrong_type(b, size, align), 0)) type_mismatch(p, kind, size, align);
        st = quarantine(p, sampled_out(p) ? 0 : capture(fp));
        if (st == 0) return;
    }
    size_t usable;
    // A block from a library loaded with RTLD_DEEPBIND, whose malloc is glibc's.
    if (st == 0 && shim_deepbind_glibc_block(p, &usable)) { __libc_free(p); return; }
    bad_free(p, st, release_name(kind));
}

void shim_free(void *p, unsigned kind, uintptr_t fp) { release(p, kind, 0, 0, 0, fp); }

void shim_delete(void *p, unsigned kind, size_t size, size_t align, uintptr_t fp) { release(p, kind, 1, size, align, fp); }

// realloc of a glibc block from an RTLD_DEEPBIND library: moved into a
// block of the shim's (its usable bytes kept, as glibc's realloc would).
static void *realloc_glibc_block(void *p, size_t usable, size_t size, uintptr_t fp) {
    if (size == 0) { __libc_free(p); return 0; }
    void *q = shim_alloc(size, SHIM_ALIGN_MALLOC, 0, SHIM_KIND_MALLOC, fp);
    if (!q) return 0;
    memcpy(q, p, min_size(usable, size));
    __libc_free(p);
    return q;
}

// realloc of a headerless block: moved as every realloc is (its whole
// slot's bytes kept, as far as they fit).
static void *realloc_bare_block(void *p, size_t size, uintptr_t fp) {
    // Freed already (and still in this thread's cache, where the new block
    // could come from): a double free, as for a block with a header.
    if (__builtin_expect(shim_arena_released_here(p), 0)) {
        shim_bare_double_free(p, "realloc");
        errno = EINVAL;
        return 0;
    }
    if (size == 0) { shim_bare_free(p, "realloc"); return 0; }
    void *q = shim_alloc(size, SHIM_ALIGN_MALLOC, 0, SHIM_KIND_MALLOC, fp);
    if (!q) return 0;
    memcpy(q, p, min_size(shim_bare_usable(p), size));
    shim_bare_free(p, "realloc");
    return q;
}

void *shim_realloc(void *p, size_t size, uintptr_t fp) {
    if (!p) return shim_alloc(size, SHIM_ALIGN_MALLOC, 0, SHIM_KIND_MALLOC, fp);
    if (shim_bare_owns(p)) return realloc_bare_block(p, size, fp);
    uint32_t st = shim_classify(p);
    size_t usable;
    if (st == 0 && shim_deepbind_glibc_block(p, &usable)) return realloc_glibc_block(p, usable, size, fp);
    if (st != SHIM_LIVE) {
        bad_free(p, st, "realloc");
        errno = EINVAL;
        return 0;
    }
    if (__builtin_expect(!whole(shim_block_from_user(p)), 0) && damaged(p, "realloc")) { errno = EINVAL; return 0; }
    // A block from new or new[] (AddressSanitizer reports it so too: its
    // realloc frees the old block as malloc's); then as asked.
    unsigned kind = shim_block_from_user(p)->alloc_kind;
    if (kind != SHIM_KIND_MALLOC) mismatch(p, "realloc");
    if (size == 0) {
        shim_free(p, kind, fp);  // reported above
        return 0;
    }
    // Always move (the old pointer must go stale, as it may with glibc), and
    // record one stack for both the new block and the old block's free.
    uint32_t stack = capture(fp);
    size_t old_size = shim_block_from_user(p)->size;
    size_t keep = min_size(old_size, size);
    // Growing a block glibc would map: from its heap instead (shim_glibc.c).
    if (size > old_size && size <= SIZE_MAX / 2) shim_glibc_realloc_grows(size + SHIM_HEADER_SIZE + SHIM_LINK_SIZE);
    void *q = alloc_block(size, SHIM_ALIGN_MALLOC, 0, SHIM_KIND_MALLOC, stack, keep);
    if (!q) return 0;
    memcpy(q, p, keep);
    st = quarantine(p, stack);
    if (st != 0) bad_free(p, st, "realloc");
    return q;
}

size_t shim_usable_size(const void *p) {
    if (!p) return 0;
    if (shim_bare_owns(p)) return shim_bare_usable(p);
    int st = shim_classify(p);
    size_t usable;
    // A block of glibc's from a library loaded with RTLD_DEEPBIND: glibc's
    // own answer (the chunk's usable bytes), as it gives without the shim.
    if (st == 0 && shim_deepbind_glibc_block(p, &usable)) return usable;
    if (st != SHIM_LIVE || !shim_block_sealed(shim_block_from_user(p))) return 0;
    return shim_block_from_user(p)->size;
}
