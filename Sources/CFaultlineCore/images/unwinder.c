#include "unwinder.h"
#include "cancel_off.h"
#include "interpose_next.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

// libunwind's public names are macros over per-architecture symbols
// (unw_step -> _ULx86_64_step); resolve those symbols by hand.
typedef int (*init_local2_fn)(unw_cursor_t *, unw_context_t *, int);
typedef int (*step_fn)(unw_cursor_t *);
typedef int (*get_reg_fn)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
typedef int (*set_caching_fn)(unw_addr_space_t, unw_caching_policy_t);

typedef int (*backtrace_fn)(void **, int);

static init_local2_fn p_init_local2;
static backtrace_fn p_backtrace;
static step_fn p_step;
static get_reg_fn p_get_reg;
static int g_have_libunwind;
// Set once this thread's libunwind trace cache exists. initial-exec: our own
// TLS must live in the static block so reading it never allocates.
static __thread int t_warm __attribute__((tls_model("initial-exec")));

// What brackets each walk (the agent's count of libunwind walks, which
// releases libunwind's pipe after the last: unwind_pipe.h), or nothing.
static void (*_Atomic g_walk_begin)(void);
static void (*_Atomic g_walk_end)(void);

void fl_unwinder_set_walk_hooks(void (*begin)(void), void (*end)(void)) {
    atomic_store(&g_walk_end, end);
    atomic_store(&g_walk_begin, begin);
}

// The end hook of the begin that ran: set between the two, it must not run
// alone (the count would go below zero).
static void (*walk_begin(void))(void) {
    void (*begin)(void) = atomic_load(&g_walk_begin);
    if (!begin) return 0;
    begin();
    return atomic_load(&g_walk_end);
}

static void walk_end(void (*end)(void)) {
    if (end) end();
}

// The malloc shim's faultline_shim_untracked (shim_untracked.c), when it
// is loaded after this image: the block glibc mallocs for libunwind's TLS
// in a warm-up is Faultline's, and recording its stack cost a libunwind
// walk on every thread the agent warms (issue 29, start-up round 4).
static void *g_untracked;
FL_NEXT_SLOT(g_untracked, "faultline_shim_untracked")

void fl_unwinder_warm_thread(void) {
    if (!p_backtrace || t_warm) return;
    void (*untracked)(int) = (void (*)(int))g_untracked;
    void *buf[4];
    // libunwind reads its validation pipe (read: a cancellation point). A
    // thread cancelled as it was created ended here, in the agent's
    // thread start, before its own start routine ran (cancel_off.h).
    int cancel_state = fl_cancel_off();
    void (*end)(void) = walk_begin();
    if (untracked) untracked(1);
    p_backtrace(buf, 4);  // allocates libunwind's TLS and trace cache here
    if (untracked) untracked(0);
    walk_end(end);
    fl_cancel_restore(cancel_state);
    t_warm = 1;
}

#define FL_STR2(x) #x
#define FL_STR(x) FL_STR2(x)

int fl_unwinder_init(void) {
    if (g_have_libunwind) return 1;
    void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (!h) return 0;
    p_init_local2 = (init_local2_fn)dlsym(h, FL_STR(unw_init_local2));
    p_step = (step_fn)dlsym(h, FL_STR(unw_step));
    p_get_reg = (get_reg_fn)dlsym(h, FL_STR(unw_get_reg));
    set_caching_fn set_caching = (set_caching_fn)dlsym(h, FL_STR(unw_set_caching_policy));
    unw_addr_space_t *as = (unw_addr_space_t *)dlsym(h, FL_STR(unw_local_addr_space));
    // unw_backtrace is libunwind's fast path (a per-thread cache of frame
    // shapes keyed by IP, allocated with mmap; written for SIGPROF-driven
    // profilers): ~100x faster than stepping a cursor.
    p_backtrace = (backtrace_fn)dlsym(h, "unw_backtrace");
    if (!p_init_local2 || !p_step || !p_get_reg) return 0;
    // Global caching: the per-thread policy keeps its cache in libunwind's
    // dynamic TLS, which glibc mallocs on a thread's first touch of a
    // dlopen'd library — unsafe in a handler. The global cache's lock is
    // taken with all signals blocked, so a handler can only meet it held by
    // another thread, which releases it. The fast trace (below) also needs a
    // caching policy other than none.
    if (set_caching && as) set_caching(*as, UNW_CACHE_GLOBAL);
    g_have_libunwind = 1;
    return 1;
}

const char *fl_unwinder_method(void) { return g_have_libunwind ? "libunwind" : "frame_pointer"; }

uintptr_t fl_context_pc(const ucontext_t *uc) {
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    return 0;
#endif
}

uintptr_t fl_context_sp(const ucontext_t *uc) {
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.sp;
#else
    return 0;
#endif
}

uintptr_t fl_context_fp(const ucontext_t *uc) {
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.regs[29];
#else
    return 0;
#endif
}

// Frame-pointer walk, bounded by the stack pointer so a corrupt chain cannot
// send us into unmapped memory below the stack or loop forever.
static int unwind_frame_pointers(const ucontext_t *uc, uintptr_t *pcs, int max) {
    int n = 0;
    uintptr_t sp = fl_context_sp(uc);
    uintptr_t fp = fl_context_fp(uc);
    if (max <= 0) return 0;
    pcs[n++] = fl_context_pc(uc);
    while (n < max && fp >= sp && fp - sp < (64u << 20) && (fp & 7) == 0) {
        uintptr_t next = ((uintptr_t *)fp)[0];
        uintptr_t ret = ((uintptr_t *)fp)[1];
        if (ret == 0) break;
        pcs[n++] = ret;
        if (next <= fp) break;
        fp = next;
    }
    return n;
}

int fl_unwind_context_fp(const ucontext_t *uc, uintptr_t *pcs, int max) { return unwind_frame_pointers(uc, pcs, max); }

// Fast path: unwind from here (inside the signal handler, on the thread the
// context belongs to) through the signal trampoline into `buf`, then keep
// only the frames from the interrupted instruction outwards (moved to the
// front). Returns 0 when the interrupted pc is not among the first frames
// (the caller then steps a cursor instead).
static int unwind_fast_into(const ucontext_t *uc, uintptr_t *buf, int cap) {
    enum { SLACK = 48 };  // handler, agent and trampoline frames above it
    int n = p_backtrace((void **)buf, cap);
    uintptr_t pc = fl_context_pc(uc);
    for (int i = 0; i < n && i < SLACK; i++) {
        if (buf[i] != pc) continue;
        for (int j = i; j < n; j++) buf[j - i] = buf[j];
        return n - i > 1 ? n - i : 0;
    }
    return 0;
}

static int unwind_fast(const ucontext_t *uc, uintptr_t *pcs, int max) {
    uintptr_t buf[FL_UNWIND_MAX + 48];
    if (max > FL_UNWIND_MAX) max = FL_UNWIND_MAX;
    int n = unwind_fast_into(uc, buf, max + 48);
    if (n > max) n = max;
    for (int i = 0; i < n; i++) pcs[i] = buf[i];
    return n;
}

static int unwind_slow(const ucontext_t *uc, uintptr_t *pcs, int max);

// fl_unwind_context_deep's walk: up to `cap` frames, not capped at FL_UNWIND_MAX.
static int unwind_deep(const ucontext_t *uc, uintptr_t *pcs, int cap) {
    if (p_backtrace && t_warm) {
        int n = unwind_fast_into(uc, pcs, cap);
        if (n > 0) return n;
    }
    return unwind_slow(uc, pcs, cap);
}

// fl_unwind_context's walk.
static int unwind(const ucontext_t *uc, uintptr_t *pcs, int max) {
    // Only on threads whose libunwind TLS already exists (see warm_thread).
    if (p_backtrace && t_warm) {
        int n = unwind_fast(uc, pcs, max);
        if (n > 0) return n;
    }
    return unwind_slow(uc, pcs, max);
}

// Runs `walk` (libunwind) with cancellation off: libunwind reads its
// validation pipe, a cancellation point, and on a thread with a
// pthread_cancel pending a stack sample (the sample handler, a crash
// report's capture) ended the thread inside the handler, wherever it had
// been interrupted (cancel_off.h).
static int unwind_cancel_off(int (*walk)(const ucontext_t *, uintptr_t *, int), const ucontext_t *uc, uintptr_t *pcs, int max) {
    if (!g_have_libunwind) return unwind_frame_pointers(uc, pcs, max);
    int cancel_state = fl_cancel_off();
    void (*end)(void) = walk_begin();
    int n = walk(uc, pcs, max);
    walk_end(end);
    fl_cancel_restore(cancel_state);
    return n;
}

int fl_unwind_context_deep(const ucontext_t *uc, uintptr_t *pcs, int cap) { return unwind_cancel_off(unwind_deep, uc, pcs, cap); }

int fl_unwind_context(const ucontext_t *uc, uintptr_t *pcs, int max) { return unwind_cancel_off(unwind, uc, pcs, max); }

static int unwind_slow(const ucontext_t *uc, uintptr_t *pcs, int max) {
    unw_cursor_t cursor;
    // On x86-64 and aarch64 unw_context_t is ucontext_t; copy so libunwind
    // may not scribble on the kernel's frame.
    unw_context_t ctx;
    memcpy(&ctx, uc, sizeof(ucontext_t) < sizeof(ctx) ? sizeof(ucontext_t) : sizeof(ctx));
    if (p_init_local2(&cursor, &ctx, UNW_INIT_SIGNAL_FRAME) < 0) return unwind_frame_pointers(uc, pcs, max);
    int n = 0;
    do {
        unw_word_t ip = 0;
        if (p_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0) break;
        pcs[n++] = (uintptr_t)ip;
    } while (n < max && p_step(&cursor) > 0);
    if (n <= 1) return unwind_frame_pointers(uc, pcs, max);
    return n;
}
