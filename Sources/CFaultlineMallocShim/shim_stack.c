#include "shim_stack.h"
#include "shim_thread.h"

#include <dlfcn.h>

typedef int (*backtrace_fn)(void **, int);
static backtrace_fn g_unw_backtrace;

#define SHIM_STR2(x) #x
#define SHIM_STR(x) SHIM_STR2(x)
#define UNW_LOCAL_ONLY
#include <libunwind.h>

int shim_stack_init(int want_libunwind) {
    if (!want_libunwind) return 0;
    if (g_unw_backtrace) return 1;
    // RTLD_LOCAL: libunwind's _Unwind_* symbols must not interpose the C++
    // runtime's unwinder. unw_backtrace is a macro over _ULx86_64_backtrace.
    void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (!h) return 0;
    g_unw_backtrace = (backtrace_fn)dlsym(h, SHIM_STR(unw_backtrace));
    return g_unw_backtrace != 0;
}

const char *shim_stack_method(void) { return g_unw_backtrace ? "libunwind" : "frame_pointer"; }

// Walks saved frame pointers from `fp`. Every frame read lies between the
// current frame and the top of this thread's stack, which is mapped, so a
// garbage %rbp in code built without frame pointers ends the walk (or adds
// a bogus frame) but never faults.
static int walk_frame_pointers(uintptr_t fp, uintptr_t *pcs, int max) {
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    int n = 0;
    // The allocator's own frame is always valid: it has the return address.
    pcs[n++] = ((uintptr_t *)fp)[1];
    if (!shim_thread_bounds() || here < shim_self.stack_lo || here >= shim_self.stack_hi) return n;
    uintptr_t hi = shim_self.stack_hi;
    uintptr_t next = ((uintptr_t *)fp)[0];
    while (n < max) {
        // (Written without next + 16, which a garbage %rbp can overflow.)
        if (next <= fp || next >= hi || hi - next < 16 || (next & 7)) break;
        fp = next;
        uintptr_t ret = ((uintptr_t *)fp)[1];
        if (ret < 4096) break;
        pcs[n++] = ret;
        next = ((uintptr_t *)fp)[0];
    }
    return n;
}

int shim_stack_capture(uintptr_t fp, uintptr_t *pcs, int max) {
    if (max <= 0) return 0;
    if (!g_unw_backtrace) return walk_frame_pointers(fp, pcs, max);
    // unw_backtrace starts in this function; drop frames up to the return
    // address into the program.
    void *buf[80];
    int cap = max + 8 < 80 ? max + 8 : 80;
    int n = g_unw_backtrace(buf, cap);
    uintptr_t ret0 = ((uintptr_t *)fp)[1];
    int start = -1;
    for (int i = 0; i < n && i < 8; i++) if ((uintptr_t)buf[i] == ret0) { start = i; break; }
    if (start < 0) return walk_frame_pointers(fp, pcs, max);
    int k = 0;
    for (int i = start; i < n && k < max; i++) pcs[k++] = (uintptr_t)buf[i];
    return k;
}
