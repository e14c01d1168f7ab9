#include "shim_stack.h"
#include "shim_config.h"
#include "shim_block.h"
#include "shim_stack_fp.h"
#include "shim_thread.h"
#include "image_list.h"
#include "page_size.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <link.h>
#include <sys/auxv.h>

extern void *__libc_malloc(size_t);  // only its address: it lies in libc

#define SHIM_STR2(x) #x
#define SHIM_STR(x) SHIM_STR2(x)
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdatomic.h>

typedef int (*backtrace_fn)(void **, int);
static backtrace_fn g_unw_backtrace;
int shim_stack_libunwind, shim_stack_libunwind_fallback;
// libgcc's unwinder, which reports each frame's CFA: where the return
// addresses lie (shim_stack_capture_slots). Lock-free with glibc 2.35+
// (_dl_find_object); libunwind's cursor takes a lock and two sigprocmask
// calls a frame. NULL when libgcc_s cannot be loaded.
struct _Unwind_Context;
typedef int (*gcc_trace_fn)(struct _Unwind_Context *, void *);
static int (*g_gcc_backtrace)(gcc_trace_fn, void *);
static uintptr_t (*g_gcc_get_ip)(struct _Unwind_Context *);
static uintptr_t (*g_gcc_get_cfa)(struct _Unwind_Context *);
enum { GCC_CONTINUE = 0, GCC_STOP = 4 };

// The dynamic loader's code, where a call from ld.so into malloc or free
// comes from. ld.so allocates and frees while it holds its own locks:
// dlclose frees the library's link map holding the loader's write lock, the
// lock dl_iterate_phdr takes. libunwind, looking up a frame it has not seen,
// holds its own cache lock and calls dl_iterate_phdr: a thread in dlclose
// whose free asked libunwind for a stack waited for that cache lock while
// the unwinding thread waited for the loader's lock (seen as a deadlock of
// two threads: dlopen/dlclose on one, new threads allocating on others,
// FAULTLINE_MALLOC_UNWINDER=libunwind; memory.dlclose-libunwind).
// Such calls are walked by frame pointers instead.
static uintptr_t g_ldso_lo, g_ldso_hi;

/// How many frames an unwind from inside the shim may pass before the
/// program's: the shim's own (up to 8 in a debug build) and, for an
/// allocation libc makes inside a wrapped call (shim_libc_callers.c),
/// libc's function and the wrapper. At 8, a strdup from code without frame
/// pointers under the auto unwinder was found at the 8th: one frame more
/// and its stack would have been frame 0 alone.
#define SHIM_FRAMES_ABOVE 12

/// Stack libunwind may need below the allocator's frame.
#define SHIM_UNWIND_STACK_NEED (32u << 10)

static void find_loader(void) {
    uintptr_t base = (uintptr_t)getauxval(AT_BASE);
    if (!base) return;  // no interpreter: ld.so ran the program itself, or static
    int n = 0;
    // Its headers lie in its first page, mapped readable like any image's.
    const ElfW(Phdr) *ph = fl_elf_phdrs(base, fl_page_size(), &n);
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; ph && i < n; i++) {
        if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X)) continue;
        uintptr_t a = base + ph[i].p_vaddr, b = a + ph[i].p_memsz;
        if (a < lo) lo = a;
        if (b > hi) hi = b;
    }
    if (hi > lo) { g_ldso_lo = lo; g_ldso_hi = hi; }
}

// glibc holds the same write lock while a dl_iterate_phdr callback runs: a
// callback that allocates (a garbage collector registering roots, a
// profiler) met a libunwind unwind on another thread the same way, every
// run, and hung for ever under the shim alone
// (memory.dl-iterate-callback-libunwind). Interposed only to mark the
// calling thread; resolved in the constructor (shim_stack_resolve), as the
// crash handler's libunwind may make the first call, where dlsym is unsafe.
typedef int (*dl_callback)(struct dl_phdr_info *, size_t, void *);
typedef int (*dl_iterate_fn)(dl_callback, void *);
static dl_iterate_fn g_dl_iterate;

uintptr_t shim_text_lo, shim_text_hi, shim_libc_text_lo, shim_libc_text_hi;

/// An address, and the executable segment found holding it.
typedef struct text_of { uintptr_t addr, lo, hi; } text_of;

// Records the executable segment of the object that holds `t->addr`.
static int find_text(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    text_of *t = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (t->addr >= lo && t->addr < hi) {
            t->lo = lo;
            t->hi = hi;
            return 1;
        }
    }
    return 0;
}

void shim_stack_resolve(void) {
    if (!__atomic_load_n(&g_dl_iterate, __ATOMIC_ACQUIRE))
        __atomic_store_n(&g_dl_iterate, (dl_iterate_fn)dlsym(RTLD_NEXT, "dl_iterate_phdr"), __ATOMIC_RELEASE);
    dl_iterate_fn next = __atomic_load_n(&g_dl_iterate, __ATOMIC_ACQUIRE);
    if (!next || shim_text_hi) return;
    text_of own = {(uintptr_t)&find_text, 0, 0}, libc = {(uintptr_t)&__libc_malloc, 0, 0};
    next(find_text, &own);
    next(find_text, &libc);
    shim_text_lo = own.lo, shim_text_hi = own.hi;
    shim_libc_text_lo = libc.lo, shim_libc_text_hi = libc.hi;
}

__attribute__((visibility("default"))) int dl_iterate_phdr(dl_callback callback, void *data) {
    shim_self.in_dl_iterate++;  // first: dlsym may allocate
    dl_iterate_fn next = __atomic_load_n(&g_dl_iterate, __ATOMIC_ACQUIRE);
    if (__builtin_expect(!next, 0)) {
        shim_stack_resolve();
        next = __atomic_load_n(&g_dl_iterate, __ATOMIC_ACQUIRE);
    }
    int rc = next ? next(callback, data) : 0;
    shim_self.in_dl_iterate--;
    return rc;
}

int shim_stack_init(int mode) {
    if (mode == SHIM_UNWIND_FP) return 0;
    if (g_unw_backtrace) return 1;
    find_loader();
    // RTLD_LOCAL: libunwind's _Unwind_* symbols must not interpose the C++
    // runtime's unwinder. unw_backtrace is a macro over _ULx86_64_backtrace.
    void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (!h) return 0;
    g_unw_backtrace = (backtrace_fn)dlsym(h, SHIM_STR(unw_backtrace));
    shim_stack_libunwind = g_unw_backtrace && mode == SHIM_UNWIND_LIBUNWIND;
    shim_stack_libunwind_fallback = g_unw_backtrace && mode == SHIM_UNWIND_AUTO;
    void *gcc = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
    if (gcc) {
        g_gcc_get_ip = (uintptr_t (*)(struct _Unwind_Context *))dlsym(gcc, "_Unwind_GetIP");
        g_gcc_get_cfa = (uintptr_t (*)(struct _Unwind_Context *))dlsym(gcc, "_Unwind_GetCFA");
        if (g_gcc_get_ip && g_gcc_get_cfa) g_gcc_backtrace = (int (*)(gcc_trace_fn, void *))dlsym(gcc, "_Unwind_Backtrace");
    }
    return g_unw_backtrace != 0;
}

const char *shim_stack_method(void) {
    return shim_stack_libunwind ? "libunwind" : shim_stack_libunwind_fallback ? "frame_pointer_then_libunwind" : "frame_pointer";
}

int shim_stack_has_slots(void) { return g_unw_backtrace && g_gcc_backtrace; }

// One copy of the walk for libunwind's fallbacks below.
static int walk_frame_pointers(uintptr_t fp, uintptr_t *pcs, int max) { return shim_walk_frame_pointers(fp, pcs, max); }

// The agent's count of libunwind walks (its unwind_pipe.h: the last walk
// to end closes libunwind's memory-validation pipe, so no fd is held
// between walks), set at the agent's install; none without the agent.
static void (*_Atomic g_walk_begin)(void);
static void (*_Atomic g_walk_end)(void);

/// Called by the agent at its install with its walk bracket.
__attribute__((visibility("default"))) void faultline_shim_set_unwind_walk_hooks(void (*begin)(void), void (*end)(void)) {
    atomic_store(&g_walk_end, end);
    atomic_store(&g_walk_begin, begin);
}

int shim_stack_capture(uintptr_t fp, uintptr_t *pcs, int max) {
    if (max <= 0) return 0;
    if (!g_unw_backtrace) return walk_frame_pointers(fp, pcs, max);
    uintptr_t ret0 = ((uintptr_t *)fp)[1];
    if ((ret0 >= g_ldso_lo && ret0 < g_ldso_hi) || shim_self.in_dl_iterate) return walk_frame_pointers(fp, pcs, max);  // see find_loader
    // libunwind needs several KiB of stack below here (its cursor, the
    // frames it steps with, the signal mask it saves): a thread made with a
    // 16 KiB stack, the agent's thread-start frames above, overflowed it in
    // its first malloc (leaks.small-stack-libunwind).
    if (shim_thread_bounds() && fp >= shim_self.stack_lo && fp < shim_self.stack_hi &&
        fp - shim_self.stack_lo < SHIM_UNWIND_STACK_NEED)
        return walk_frame_pointers(fp, pcs, max);
    // unw_backtrace starts in this function; drop frames up to the return
    // address into the program, looked for among the first
    // SHIM_FRAMES_ABOVE. The cap stays at max + 8 (what a deep stack
    // costs); a stack found further down keeps fewer than max frames.
    void *buf[80];
    int cap = max + 8 < 80 ? max + 8 : 80;
    // The process's first unw_backtrace drains libunwind's pipe and leaves
    // EAGAIN in errno, inside a malloc that succeeds.
    int saved = errno;
    void (*begin)(void) = atomic_load_explicit(&g_walk_begin, memory_order_acquire);
    void (*end)(void) = begin ? atomic_load(&g_walk_end) : 0;
    if (begin) begin();
    int n = g_unw_backtrace(buf, cap);
    if (end) end();
    errno = saved;
    int start = -1;
    for (int i = 0; i < n && i < SHIM_FRAMES_ABOVE; i++) if ((uintptr_t)buf[i] == ret0) { start = i; break; }
    if (start < 0) return walk_frame_pointers(fp, pcs, max);
    int k = 0;
    for (int i = start; i < n && k < max; i++) pcs[k++] = (uintptr_t)buf[i];
    return k;
}

typedef struct slot_walk {
    uintptr_t ret0, sp0, hi;
    uintptr_t *pcs;
    uint32_t *slots;
    int max, n, skipped;
} slot_walk;

// libgcc hands each frame over with the CFA of the frame below it (the one
// returning into it): the return address into this frame lies just below
// that CFA.
static int slot_frame(struct _Unwind_Context *ctx, void *arg) {
    slot_walk *w = arg;
    uintptr_t ip = g_gcc_get_ip(ctx), slot = g_gcc_get_cfa(ctx) - 8;
    if (ip == 0) return GCC_STOP;
    if (w->n == 0) {
        // Out of the shim first, to the program's frame, whose return
        // address the exported function's frame holds at fp + 8.
        if (ip != w->ret0) return ++w->skipped == SHIM_FRAMES_ABOVE ? GCC_STOP : GCC_CONTINUE;
        if (slot != w->sp0 - 8) return GCC_STOP;
        w->pcs[0] = ip;
        w->slots[0] = 0;
    } else {
        // Not where a call puts it (a signal frame): unknown.
        int found = slot >= w->sp0 && slot < w->hi && w->hi - slot >= 8 && slot - w->sp0 < SHIM_STACK_SLOT_UNKNOWN &&
                    *(const uintptr_t *)slot == ip;
        w->pcs[w->n] = ip;
        w->slots[w->n] = found ? (uint32_t)(slot - w->sp0) : SHIM_STACK_SLOT_UNKNOWN;
    }
    return ++w->n == w->max ? GCC_STOP : GCC_CONTINUE;
}

int shim_stack_capture_slots(uintptr_t fp, uintptr_t *pcs, uint32_t *slots, int max) {
    if (max <= 0 || !g_gcc_backtrace || !shim_thread_bounds()) return 0;
    slot_walk w = {((uintptr_t *)fp)[1], fp + 16, shim_self.stack_hi, pcs, slots, max, 0, 0};
    int saved = errno;  // as for unw_backtrace: malloc must not change it
    g_gcc_backtrace(slot_frame, &w);
    errno = saved;
    return w.n;
}
