// Interposers for __cxa_allocate_exception, __cxa_throw, __cxa_rethrow,
// std::current_exception and std::set_terminate.
//
// C, not C++: the agent links no C++ runtime (cxx_runtime.h), and C lets
// this file define the runtime's symbols by their mangled names with the
// signatures the interposers need, tail-calling the runtime's own.
#include "cxx_exception.h"
#include "cxx_runtime.h"
#include "cxx_throw_hooks.h"
#include "loader_lock_watch.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <unwind.h>

#define FL_EXPORT __attribute__((visibility("default")))

#if defined(__clang__)
// The hook's frame must be gone before the runtime starts unwinding: every
// extra frame costs the exception unwinder a CFI lookup in both phases
// (measured ~300 ns per throw), which is more than the capture itself.
#define FL_TAIL_CALL __attribute__((musttail))
#else
#define FL_TAIL_CALL
#endif

typedef int (*unw_backtrace_fn)(void **, int);
typedef _Unwind_Reason_Code (*unwind_backtrace_fn)(_Unwind_Trace_Fn, void *);
typedef uintptr_t (*unwind_get_ip_fn)(struct _Unwind_Context *);

// libunwind's unw_backtrace takes its per-thread "fast trace" path: after
// the first walk through a function it steps from cached frame shapes
// instead of decoding DWARF again (~10 ns a frame). But that first walk
// reads the unwind tables through dl_iterate_phdr, under the loader's write
// lock, and waits (for ever) while another thread is parked inside a
// dl_iterate_phdr callback (scenario cxx.loader-lock-held).
static unw_backtrace_fn g_unw_backtrace;
// libgcc's unwinder, the one libstdc++ throws with: it finds a frame's
// unwind tables with glibc's _dl_find_object (2.35+), which takes no lock,
// but decodes every frame every time (~230 ns a frame). Taken while another
// thread is inside dl_iterate_phdr, and when libunwind is missing.
static unwind_backtrace_fn g_gcc_backtrace;
static unwind_get_ip_fn g_gcc_get_ip;

static int g_frames;  // frames kept per throw; 0 while not recording
static int g_frozen;
static fl_terminate_fn g_own;
static fl_terminate_fn g_chained;

typedef struct throw_ring {
    unsigned next;
    fl_cxx_throw_record rec[FL_CXX_THROW_RING];
} throw_ring;
// Per thread: no atomics and no contention on the throw path, and the
// terminate handler runs on the thread whose exception escaped (also for
// an exception escaping a std::thread).
static __thread throw_ring t_ring;
static __thread fl_cxx_throw_record t_rethrow;
static __thread pid_t t_tid;       // cached gettid (reset in a forked child)

// Records of exceptions captured into an exception_ptr, for a rethrow on
// another thread. Written rarely (once per current_exception), so a shared
// slot counter is fine; a per-slot sequence number (odd while written) lets
// the reader copy a slot and know it was not torn.
typedef struct escaped_slot {
    unsigned seq;
    fl_cxx_throw_record rec;
} escaped_slot;
static escaped_slot g_escaped[FL_CXX_ESCAPED];
static unsigned g_escaped_next;

static pid_t current_tid(void) {
    if (__builtin_expect(t_tid == 0, 0)) t_tid = (pid_t)syscall(SYS_gettid);
    return t_tid;
}

static void forget_tid_in_child(void) { t_tid = 0; }

// A hook runs: the process has a C++ runtime, perhaps one a library loaded
// since the agent started (its functions, and the detector's install, wait
// for it). A runtime that is not libstdc++ or libc++abi (none found by
// name) still gets its throws passed on, by RTLD_NEXT.
static void runtime_arrived(void) {
    if (!fl_cxx_runtime_find()) {
        if (!fl_cxx_rt.allocate_exception) fl_cxx_rt.allocate_exception = (void *(*)(size_t))dlsym(RTLD_NEXT, "__cxa_allocate_exception");
        if (!fl_cxx_rt.cxa_throw) fl_cxx_rt.cxa_throw = (void (*)(void *, void *, void (*)(void *)))dlsym(RTLD_NEXT, "__cxa_throw");
        if (!fl_cxx_rt.rethrow) fl_cxx_rt.rethrow = (void (*)(void))dlsym(RTLD_NEXT, "__cxa_rethrow");
        if (!fl_cxx_rt.set_terminate) fl_cxx_rt.set_terminate = (fl_terminate_fn (*)(fl_terminate_fn))dlsym(RTLD_NEXT, "_ZSt13set_terminatePFvvE");
        if (!fl_cxx_rt.current_exception) fl_cxx_rt.current_exception = (void *(*)(void *))dlsym(RTLD_NEXT, "_ZSt17current_exceptionv");
    }
    fl_cxx_exception_runtime_loaded();
}

// The calling thread's newest record of `object`, or null.
static const fl_cxx_throw_record *ring_find(const void *object) {
    if (!object) return 0;
    throw_ring *r = &t_ring;
    for (unsigned k = 1; k <= FL_CXX_THROW_RING; k++) {
        const fl_cxx_throw_record *rec = &r->rec[(r->next - k) % FL_CXX_THROW_RING];
        if (rec->object == object) return rec;
    }
    return 0;
}

static void copy_record(fl_cxx_throw_record *out, const fl_cxx_throw_record *in) {
    out->object = in->object;
    out->tid = in->tid;
    out->count = in->count;
    out->rethrown = in->rethrown;
    out->unwinder = in->unwinder;
    memcpy(out->pcs, in->pcs, (size_t)in->count * sizeof in->pcs[0]);
}

// Publishes this thread's record of `object` for other threads.
static void escape(const void *object) {
    const fl_cxx_throw_record *rec = ring_find(object);
    if (!rec) return;
    for (unsigned i = 0; i < FL_CXX_ESCAPED; i++)
        if (__atomic_load_n(&g_escaped[i].rec.object, __ATOMIC_RELAXED) == object) return;  // already there
    escaped_slot *slot = &g_escaped[__atomic_fetch_add(&g_escaped_next, 1, __ATOMIC_RELAXED) % FL_CXX_ESCAPED];
    unsigned seq = __atomic_load_n(&slot->seq, __ATOMIC_RELAXED);
    if (seq & 1) return;  // another thread is writing this slot right now
    if (!__atomic_compare_exchange_n(&slot->seq, &seq, seq + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
    copy_record(&slot->rec, rec);
    __atomic_store_n(&slot->seq, seq + 2, __ATOMIC_RELEASE);
}

// A new exception object is at `object`: records of an earlier exception
// that lived there (thrown, caught, freed) no longer describe anything.
static void forget(const void *object) {
    throw_ring *r = &t_ring;
    for (unsigned k = 0; k < FL_CXX_THROW_RING; k++)
        if (r->rec[k].object == object) r->rec[k].object = 0;
    if (t_rethrow.object == object) t_rethrow.object = 0;
    for (unsigned i = 0; i < FL_CXX_ESCAPED; i++) {
        escaped_slot *slot = &g_escaped[i];
        if (__atomic_load_n(&slot->rec.object, __ATOMIC_RELAXED) != object) continue;
        unsigned seq = __atomic_load_n(&slot->seq, __ATOMIC_RELAXED);
        if (seq & 1) continue;  // being rewritten for another exception right now
        if (!__atomic_compare_exchange_n(&slot->seq, &seq, seq + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) continue;
        if (slot->rec.object == object) slot->rec.object = 0;
        __atomic_store_n(&slot->seq, seq + 2, __ATOMIC_RELEASE);
    }
}

static int escaped_lookup(const void *object, fl_cxx_throw_record *out) {
    for (unsigned i = 0; i < FL_CXX_ESCAPED; i++) {
        escaped_slot *slot = &g_escaped[i];
        unsigned before = __atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE);
        if ((before & 1) || slot->rec.object != object) continue;
        int count = slot->rec.count;
        if (count < 0 || count > FL_CXX_THROW_FRAMES_MAX + 2) continue;
        copy_record(out, &slot->rec);
        out->count = count;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&slot->seq, __ATOMIC_RELAXED) == before && out->object == object) return 1;
    }
    return 0;
}

typedef struct gcc_trace_state {
    uintptr_t *pcs;
    uintptr_t ra;  // return address into the thrower
    int n, max;
} gcc_trace_state;

static _Unwind_Reason_Code gcc_trace_one(struct _Unwind_Context *ctx, void *arg) {
    gcc_trace_state *s = (gcc_trace_state *)arg;
    uintptr_t ip = g_gcc_get_ip(ctx);
    if (ip == 0) return _URC_END_OF_STACK;
    s->pcs[s->n] = ip;
    // The thrower found: stop once g_frames frames from the one before it
    // (inside the hook) are in, so no frame is decoded only to be dropped
    // (libgcc decodes each frame's DWARF on every walk).
    if (ip == s->ra && s->n >= 1 && s->n < 4) {
        int end = s->n - 1 + g_frames;
        if (end < s->max) s->max = end;
    }
    return ++s->n >= s->max ? _URC_END_OF_STACK : _URC_NO_REASON;
}

// Fills `rec` with the stack of the calling hook, whose return address is
// `ra`: frame 0 is inside the hook, frame 1 is `ra` in the thrower. Inlined
// into the hook so that the unwinder's own frames are the only ones to drop
// (libgcc starts at the hook's frame). Allocates nothing, and waits for no
// thread parked in dl_iterate_phdr; libunwind allocates its per-thread
// cache on a thread's first walk.
__attribute__((always_inline)) static inline void capture(fl_cxx_throw_record *rec, const void *ra) {
    int n = 0;
    // Slack of 2 beyond g_frames: the unwinder's own frame, and the search below.
    if (g_unw_backtrace && !fl_loader_iteration_elsewhere()) {
        n = g_unw_backtrace((void **)rec->pcs, g_frames + 2);
        rec->unwinder = FL_CXX_UNWINDER_LIBUNWIND;
    } else if (g_gcc_backtrace) {
        gcc_trace_state s = {rec->pcs, (uintptr_t)ra, 0, g_frames + 2};
        g_gcc_backtrace(gcc_trace_one, &s);
        n = s.n;
        rec->unwinder = FL_CXX_UNWINDER_LIBGCC;
    } else {
        rec->unwinder = FL_CXX_UNWINDER_NONE;
    }
    int at = -1;
    for (int i = 0; i < n && i < 4; i++)
        if (rec->pcs[i] == (uintptr_t)ra) { at = i; break; }
    int first = at >= 1 ? at - 1 : (n > 1 ? 1 : 0);
    int keep = n - first;
    if (keep > g_frames) keep = g_frames;
    for (int i = 0; i < keep; i++) rec->pcs[i] = rec->pcs[first + i];
    rec->count = keep < 0 ? 0 : keep;
}

void fl_cxx_hooks_enable(int frames) {
    void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (h) g_unw_backtrace = (unw_backtrace_fn)dlsym(h, "unw_backtrace");
    // libgcc_s itself, not the first _Unwind_Backtrace in the search order:
    // a program that links libunwind globally would give libunwind's, which
    // takes the loader lock. Already loaded wherever libstdc++ is.
    void *gcc = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
    if (gcc) {
        g_gcc_get_ip = (unwind_get_ip_fn)dlsym(gcc, "_Unwind_GetIP");
        if (g_gcc_get_ip) g_gcc_backtrace = (unwind_backtrace_fn)dlsym(gcc, "_Unwind_Backtrace");
    }
    static int once;  // a reinstall registers nothing twice
    if (!once++) pthread_atfork(0, 0, forget_tid_in_child);
    if (frames > FL_CXX_THROW_FRAMES_MAX) frames = FL_CXX_THROW_FRAMES_MAX;
    __atomic_store_n(&g_frames, frames < 0 ? 0 : frames, __ATOMIC_RELEASE);
}

void fl_cxx_hooks_freeze(void) { __atomic_store_n(&g_frozen, 1, __ATOMIC_SEQ_CST); }

const char *fl_cxx_hooks_unwinder(void) {
    return fl_cxx_unwinder_name(g_unw_backtrace ? FL_CXX_UNWINDER_LIBUNWIND
                                : g_gcc_backtrace ? FL_CXX_UNWINDER_LIBGCC : FL_CXX_UNWINDER_NONE);
}

const char *fl_cxx_unwinder_name(int unwinder) {
    switch (unwinder) {
    case FL_CXX_UNWINDER_LIBUNWIND: return "libunwind";
    case FL_CXX_UNWINDER_LIBGCC: return "libgcc";
    default: return "none";
    }
}

int fl_cxx_throw_lookup(const void *object, fl_cxx_throw_record *out) {
    if (!object) return 0;
    const fl_cxx_throw_record *rec = ring_find(object);
    if (rec) {
        copy_record(out, rec);
        return 1;
    }
    return escaped_lookup(object, out);
}

int fl_cxx_rethrow_lookup(const void *object, fl_cxx_throw_record *out) {
    if (!object || t_rethrow.object != object) return 0;
    copy_record(out, &t_rethrow);
    return 1;
}

int fl_cxx_take_terminate(fl_terminate_fn own) {
    if (!fl_cxx_rt.set_terminate) return -1;
    fl_terminate_fn prev = fl_cxx_rt.set_terminate(own);
    __atomic_store_n(&g_chained, prev, __ATOMIC_SEQ_CST);
    __atomic_store_n(&g_own, own, __ATOMIC_SEQ_CST);
    return 0;
}

void fl_cxx_hooks_stop(void) { __atomic_store_n(&g_frames, 0, __ATOMIC_RELEASE); }

void fl_cxx_give_back_terminate(void) {
    if (!__atomic_exchange_n(&g_own, (fl_terminate_fn)0, __ATOMIC_SEQ_CST)) return;
    // The handler the program set last, before or after ours (the
    // set_terminate interposer kept it as the one to chain to).
    fl_cxx_rt.set_terminate(__atomic_exchange_n(&g_chained, (fl_terminate_fn)0, __ATOMIC_SEQ_CST));
}

fl_terminate_fn fl_cxx_chained_terminate(void) { return __atomic_load_n(&g_chained, __ATOMIC_SEQ_CST); }

/// Interposes the C++ runtime's exception allocator. The new object may
/// reuse the address of an exception that was thrown, caught and freed, and
/// not every new exception is then thrown by __cxa_throw (which would
/// replace the old record): std::make_exception_ptr builds one for
/// std::rethrow_exception. Its throw site must read "not found", never the
/// old exception's.
FL_EXPORT void *__cxa_allocate_exception(size_t size) {
    if (__builtin_expect(!fl_cxx_rt.allocate_exception || fl_cxx_exception_waits_for_runtime(), 0)) runtime_arrived();
    void *(*real)(size_t) = (void *(*)(size_t))fl_cxx_runtime_or_callers((void *)fl_cxx_rt.allocate_exception,
                                                                         __builtin_return_address(0), "__cxa_allocate_exception");
    void *object = real(size);
    if (object && g_frames > 0 && !g_frozen) forget(object);
    return object;
}

/// Interposes the C++ runtime's throw: records the stack, then tail-calls it.
FL_EXPORT void __cxa_throw(void *object, void *type, void (*destructor)(void *)) {
    if (__builtin_expect(g_frames > 0 && !g_frozen, 1)) {
        throw_ring *r = &t_ring;
        fl_cxx_throw_record *rec = &r->rec[r->next++ % FL_CXX_THROW_RING];
        rec->object = 0;  // not findable while half-written
        rec->rethrown = 0;
        rec->tid = current_tid();
        capture(rec, __builtin_return_address(0));
        rec->object = object;
    }
    if (__builtin_expect(!fl_cxx_rt.cxa_throw, 0)) runtime_arrived();
    void (*real)(void *, void *, void (*)(void *)) = fl_cxx_rt.cxa_throw;
    if (__builtin_expect(!real, 0))
        real = (void (*)(void *, void *, void (*)(void *)))fl_cxx_runtime_or_callers(0, __builtin_return_address(0), "__cxa_throw");
    FL_TAIL_CALL return real(object, type, destructor);
}

/// Interposes `throw;`: notes the rethrow and where it happened; the
/// original throw's record (same object) is kept.
FL_EXPORT void __cxa_rethrow(void) {
    if (g_frames > 0 && !g_frozen) {
        const void *object = fl_cxx_runtime_current_object();
        if (object) {
            throw_ring *r = &t_ring;
            for (unsigned k = 0; k < FL_CXX_THROW_RING; k++)
                if (r->rec[k].object == object) r->rec[k].rethrown++;
            t_rethrow.object = 0;
            t_rethrow.tid = current_tid();
            capture(&t_rethrow, __builtin_return_address(0));
            t_rethrow.object = object;
        }
    }
    if (__builtin_expect(!fl_cxx_rt.rethrow, 0)) runtime_arrived();
    void (*real)(void) = fl_cxx_rt.rethrow;
    if (__builtin_expect(!real, 0)) real = (void (*)(void))fl_cxx_runtime_or_callers(0, __builtin_return_address(0), "__cxa_rethrow");
    FL_TAIL_CALL return real();
}

/// Interposes `std::current_exception`: an exception captured into an
/// exception_ptr may be rethrown on another thread, so its record is
/// published process-wide.
FL_EXPORT void *_ZSt17current_exceptionv(void *result) {
    if (__builtin_expect(!fl_cxx_rt.current_exception, 0)) runtime_arrived();
    void *(*real)(void *) = (void *(*)(void *))fl_cxx_runtime_or_callers((void *)fl_cxx_rt.current_exception,
                                                                         __builtin_return_address(0), "_ZSt17current_exceptionv");
    void *r = real(result);
    if (g_frames > 0 && !g_frozen) {
        const void *object;
        memcpy(&object, result, sizeof object);  // exception_ptr's one member
        if (object) escape(object);
    }
    return r;
}

/// Interposes `std::set_terminate`: once the agent's handler is in place, a
/// handler the program sets becomes the one the agent chains to, so the
/// program keeps its behaviour and the agent still reports first.
FL_EXPORT fl_terminate_fn _ZSt13set_terminatePFvvE(fl_terminate_fn handler) {
    if (__builtin_expect(!fl_cxx_rt.set_terminate || fl_cxx_exception_waits_for_runtime(), 0)) runtime_arrived();
    fl_terminate_fn own = __atomic_load_n(&g_own, __ATOMIC_SEQ_CST);
    if (!own) {
        fl_terminate_fn (*real)(fl_terminate_fn) = (fl_terminate_fn (*)(fl_terminate_fn))fl_cxx_runtime_or_callers(
            (void *)fl_cxx_rt.set_terminate, __builtin_return_address(0), "_ZSt13set_terminatePFvvE");
        return real(handler);
    }
    if (handler == own) return own;  // re-installing what get_terminate returned
    return __atomic_exchange_n(&g_chained, handler, __ATOMIC_SEQ_CST);
}
