// C++'s operator new and delete, interposed as AddressSanitizer and
// valgrind do. Through libstdc++'s own operators every C++ allocation's
// stack started in `operator new`, which Debian builds without frame
// pointers: the frame-pointer walk then lost the caller (the frame that
// matters) and often went on through a stale %rbp into garbage. Here the
// stack starts at the caller of `new`, as a C caller's starts at the caller
// of malloc.
//
// Only the success path is ours. When the shim has no block to give (or
// has stepped aside for another allocator) the call goes on to the next
// definition of the same operator (libstdc++'s, or another allocator's),
// which runs the new_handler loop, throws std::bad_alloc or returns NULL
// exactly as the program expects: no C++ runtime in the shim.
#include "shim_deepbind.h"
#include "shim_heap.h"
#include "shim_lookup.h"
#include "symbol_table.h"

#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>

#define SHIM_EXPORT __attribute__((visibility("default"), disable_tail_calls))
#define SHIM_FRAME() ((uintptr_t)__builtin_frame_address(0))
#define SHIM_DETECTING() __builtin_expect(shim_mode == SHIM_MODE_DETECT, 1)

// The definition after the shim of the operator `op` (libstdc++'s),
// cached in g_next_op. NULL only if none exists, which no caller of a C++
// operator can meet: its own library defines them.
#define NEXT(op, type) ((type)shim_lookup_next_cached(&g_next_op[op], ops[op].name))

typedef struct nothrow_t nothrow_t;  // std::nothrow_t: only passed on by reference
typedef void *(*new_fn)(size_t);
typedef void *(*new_nothrow_fn)(size_t, const nothrow_t *);
typedef void *(*new_aligned_fn)(size_t, size_t);
typedef void *(*new_aligned_nothrow_fn)(size_t, size_t, const nothrow_t *);
typedef void (*delete_fn)(void *);
typedef void (*delete_aligned_fn)(void *, size_t);

// --- operators the program replaces --------------------------------------
//
// A program may define some global operators itself (in its executable,
// which comes before the shim; -static-libstdc++ links libstdc++'s in),
// typically operator new(size_t) and delete(void*) only. Without the shim
// libstdc++'s other forms call those: its sized delete calls delete(void*),
// its new[] calls new(size_t), and so on (`next` below). A shim operator
// whose form would so reach a replacement hands over as libstdc++'s would,
// so the program's own pair sees every block it would see without the shim
// (the shim's sized delete took a pool allocator's pointers: invalid_free).
// The kinds stay checked where the shim sees both ends; where the program
// itself releases (or allocates) a family of blocks, malloc's blocks pass.
enum {
    OP_NEW, OP_NEW_ARRAY, OP_NEW_NT, OP_NEW_ARRAY_NT, OP_NEW_AL, OP_NEW_ARRAY_AL, OP_NEW_AL_NT, OP_NEW_ARRAY_AL_NT,
    OP_DEL, OP_DEL_ARRAY, OP_DEL_SIZED, OP_DEL_ARRAY_SIZED, OP_DEL_NT, OP_DEL_ARRAY_NT,
    OP_DEL_AL, OP_DEL_ARRAY_AL, OP_DEL_SIZED_AL, OP_DEL_ARRAY_SIZED_AL, OP_DEL_AL_NT, OP_DEL_ARRAY_AL_NT,
    OP_COUNT,
};

static const struct {
    const char *name;
    signed char next;   ///< the operator libstdc++'s definition calls (-1: malloc or free)
    unsigned char kind; ///< the kind of block it allocates or releases
} ops[OP_COUNT] = {
    [OP_NEW] = {"_Znwm", -1, SHIM_KIND_NEW},
    [OP_NEW_ARRAY] = {"_Znam", OP_NEW, SHIM_KIND_NEW_ARRAY},
    [OP_NEW_NT] = {"_ZnwmRKSt9nothrow_t", OP_NEW, SHIM_KIND_NEW},
    [OP_NEW_ARRAY_NT] = {"_ZnamRKSt9nothrow_t", OP_NEW_ARRAY, SHIM_KIND_NEW_ARRAY},
    [OP_NEW_AL] = {"_ZnwmSt11align_val_t", -1, SHIM_KIND_NEW},
    [OP_NEW_ARRAY_AL] = {"_ZnamSt11align_val_t", OP_NEW_AL, SHIM_KIND_NEW_ARRAY},
    [OP_NEW_AL_NT] = {"_ZnwmSt11align_val_tRKSt9nothrow_t", OP_NEW_AL, SHIM_KIND_NEW},
    [OP_NEW_ARRAY_AL_NT] = {"_ZnamSt11align_val_tRKSt9nothrow_t", OP_NEW_ARRAY_AL, SHIM_KIND_NEW_ARRAY},
    [OP_DEL] = {"_ZdlPv", -1, SHIM_KIND_NEW},
    [OP_DEL_ARRAY] = {"_ZdaPv", OP_DEL, SHIM_KIND_NEW_ARRAY},
    [OP_DEL_SIZED] = {"_ZdlPvm", OP_DEL, SHIM_KIND_NEW},
    [OP_DEL_ARRAY_SIZED] = {"_ZdaPvm", OP_DEL_ARRAY, SHIM_KIND_NEW_ARRAY},
    [OP_DEL_NT] = {"_ZdlPvRKSt9nothrow_t", OP_DEL, SHIM_KIND_NEW},
    [OP_DEL_ARRAY_NT] = {"_ZdaPvRKSt9nothrow_t", OP_DEL_ARRAY, SHIM_KIND_NEW_ARRAY},
    [OP_DEL_AL] = {"_ZdlPvSt11align_val_t", -1, SHIM_KIND_NEW},
    [OP_DEL_ARRAY_AL] = {"_ZdaPvSt11align_val_t", OP_DEL_AL, SHIM_KIND_NEW_ARRAY},
    [OP_DEL_SIZED_AL] = {"_ZdlPvmSt11align_val_t", OP_DEL_AL, SHIM_KIND_NEW},
    [OP_DEL_ARRAY_SIZED_AL] = {"_ZdaPvmSt11align_val_t", OP_DEL_ARRAY_AL, SHIM_KIND_NEW_ARRAY},
    [OP_DEL_AL_NT] = {"_ZdlPvSt11align_val_tRKSt9nothrow_t", OP_DEL_AL, SHIM_KIND_NEW},
    [OP_DEL_ARRAY_AL_NT] = {"_ZdaPvSt11align_val_tRKSt9nothrow_t", OP_DEL_ARRAY_AL, SHIM_KIND_NEW_ARRAY},
};

static void *g_program_op[OP_COUNT];  // the program's own definition, else NULL
// The next definition of each operator after the shim's, found by the walk
// below as the shim starts (a lookup in the call would wait for the
// loader's lock); else looked up at the first call (a runtime loaded since).
static void *g_next_op[OP_COUNT];
static int g_looked_up;
// Bits: the program allocates (new) or releases (delete) blocks of a kind itself.
static unsigned g_program_news, g_program_deletes;

// 1 when `path` names a C++ runtime (libstdc++, libc++), whose operators
// are the defaults the shim's stand in for.
static int cxx_runtime(const char *path) {
    if (!path) return 0;
    for (const char *c = path; *c; c++)
        if (!__builtin_strncmp(c, "libstdc++", 9) || !__builtin_strncmp(c, "libc++", 6)) return 1;
    return 0;
}

// The path of the object `m` holding `f`, as dladdr names it: the
// executable's is argv[0] (its link map's name is empty).
static const char *object_name(void *f, const struct link_map *m) {
    Dl_info info;
    if (m->l_name[0]) return m->l_name;
    return dladdr(f, &info) ? info.dli_fname : "";
}

// The program's own operators: definitions before the shim's (the
// executable's), or right after it in a library that is not the C++
// runtime (one the program links that defines its own new and delete;
// without the shim its operators are everyone's, its own calls included
// when it was linked with -Bsymbolic-functions). One walk of the objects
// loaded at start, in load order (the order every program reference binds
// in), reading their symbol tables: no dlsym, none of whose failures (all
// 20 operators in a C program) then costs a dlerror message.
static __attribute__((noinline, cold)) void look_up(void) {
    const struct link_map *self = shim_object_of((void *)look_up), *first = self;
    while (first && first->l_prev) first = first->l_prev;
    if (self)
        for (int i = 0; i < OP_COUNT; i++) {
            void *f = 0;
            int after_self = 0;
            for (const struct link_map *m = first; m; m = m->l_next) {
                if (m == self) {
                    after_self = 1;
                    continue;
                }
                void *d = fl_symbol_in(m, ops[i].name);
                if (!d) continue;
                if (!after_self) {  // the program's own; the next one is still wanted
                    if (!f) f = d;
                    continue;
                }
                __atomic_store_n(&g_next_op[i], d, __ATOMIC_RELEASE);
                if (!f && !cxx_runtime(object_name(d, m))) f = d;
                break;
            }
            if (!f) continue;
            __atomic_store_n(&g_program_op[i], f, __ATOMIC_RELAXED);
            __atomic_fetch_or(i < OP_DEL ? &g_program_news : &g_program_deletes, 1u << ops[i].kind, __ATOMIC_RELAXED);
        }
    __atomic_store_n(&g_looked_up, 1, __ATOMIC_RELEASE);
}

static inline void looked_up(void) {
    if (__builtin_expect(!__atomic_load_n(&g_looked_up, __ATOMIC_ACQUIRE), 0)) look_up();
}

// The replacement libstdc++'s `op` would reach, or NULL.
static inline void *replacement_after(int op) {
    looked_up();
    for (int i = ops[op].next; i >= 0; i = ops[i].next)
        if (g_program_op[i]) return g_program_op[i];
    return 0;
}

// The kind a new block of `kind` is recorded as: malloc's when the program
// releases such blocks itself (its delete, as libstdc++'s does, calls free).
static inline unsigned recorded_kind(unsigned kind) {
    return __builtin_expect(g_program_deletes & (1u << kind), 0) ? SHIM_KIND_MALLOC : kind;
}

// The kind a delete of `kind` releases `p` as: malloc's block passes when
// the program allocates such blocks itself (its new calls malloc), or
// releases them itself (they were recorded as malloc's). Once a library
// was loaded with RTLD_DEEPBIND, any block passes: its new and delete bind
// to libstdc++'s, past the shim's, which reach the shim as malloc (new)
// or as the plain forms (its new[] calls new, its delete[] delete).
static inline unsigned released_kind(void *p, unsigned kind) {
    int deep = shim_deepbind_seen();
    if (__builtin_expect(!((g_program_news | g_program_deletes) & (1u << kind)) && !deep, 1)) return kind;
    if (!p || shim_classify(p) != SHIM_LIVE) return kind;
    unsigned was = shim_block_from_user(p)->alloc_kind;
    return deep || was == SHIM_KIND_MALLOC ? was : kind;
}

// A block for `new` (`kind` SHIM_KIND_NEW) or `new[]` (SHIM_KIND_NEW_ARRAY),
// or NULL to let the next operator decide (also when libstdc++'s `op`
// would call the program's). `align` is what an aligned form was given
// (0: an unaligned form); alignments come from the compiler (alignof of an
// over-aligned type: a power of two). The block keeps that alignment
// (new_align) for the delete's new_delete_type_mismatch check; its size
// is the header's.
static inline void *try_new(int op, size_t size, size_t align, unsigned kind, uintptr_t fp) {
    if (!SHIM_DETECTING() || replacement_after(op) || g_program_op[op]) return 0;
    unsigned recorded = recorded_kind(kind);
    // operator new(0) must return a unique pointer: one byte, as libstdc++ asks of malloc.
    // A block the program's own delete releases (recorded as malloc's) is not checked.
    unsigned code = recorded != SHIM_KIND_MALLOC ? shim_new_align_code(align) : 0;
    return shim_alloc(size ? size : 1, align <= 16 ? SHIM_ALIGN_MALLOC : align, 0, SHIM_KIND_WITH_ALIGN(recorded, code), fp);
}

// A block the next operator found (libstdc++'s, through malloc or
// aligned_alloc, once its new_handler made room; or the program's new,
// through malloc) is marked malloc's by the shim's malloc; it is new's,
// and delete must not be a mismatch.
static void *marked(void *p, unsigned kind) {
    // Resealed only when whole: a corrupt header stays corrupt for free to report.
    if (p && SHIM_DETECTING() && shim_classify(p) == SHIM_LIVE && shim_block_sealed(shim_block_from_user(p))) {
        shim_block_from_user(p)->alloc_kind = recorded_kind(kind) & 3u;
        shim_block_seal(shim_block_from_user(p));
    }
    return p;
}

/// operator new(size_t).
SHIM_EXPORT void *_Znwm(size_t size) {
    void *p = try_new(OP_NEW, size, 0, SHIM_KIND_NEW, SHIM_FRAME());
    return p ? p : marked(NEXT(OP_NEW, new_fn)(size), SHIM_KIND_NEW);
}

/// operator new[](size_t).
SHIM_EXPORT void *_Znam(size_t size) {
    void *p = try_new(OP_NEW_ARRAY, size, 0, SHIM_KIND_NEW_ARRAY, SHIM_FRAME());
    return p ? p : marked(NEXT(OP_NEW_ARRAY, new_fn)(size), SHIM_KIND_NEW_ARRAY);
}

/// operator new(size_t, const std::nothrow_t&).
SHIM_EXPORT void *_ZnwmRKSt9nothrow_t(size_t size, const nothrow_t *tag) {
    void *p = try_new(OP_NEW_NT, size, 0, SHIM_KIND_NEW, SHIM_FRAME());
    return p ? p : marked(NEXT(OP_NEW_NT, new_nothrow_fn)(size, tag), SHIM_KIND_NEW);
}

/// operator new[](size_t, const std::nothrow_t&).
SHIM_EXPORT void *_ZnamRKSt9nothrow_t(size_t size, const nothrow_t *tag) {
    void *p = try_new(OP_NEW_ARRAY_NT, size, 0, SHIM_KIND_NEW_ARRAY, SHIM_FRAME());
    return p ? p : marked(NEXT(OP_NEW_ARRAY_NT, new_nothrow_fn)(size, tag), SHIM_KIND_NEW_ARRAY);
}

/// operator new(size_t, std::align_val_t).
SHIM_EXPORT void *_ZnwmSt11align_val_t(size_t size, size_t align) {
    void *p = try_new(OP_NEW_AL, size, align, SHIM_KIND_NEW, SHIM_FRAME());
    return p ? p : marked(NEXT(OP_NEW_AL, new_aligned_fn)(size, align), SHIM_KIND_NEW);
}

/// operator new[](size_t, std::align_val_t).
SHIM_EXPORT void *_ZnamSt11align_val_t(size_t size, size_t align) {
    void *p = try_new(OP_NEW_ARRAY_AL, size, align, SHIM_KIND_NEW_ARRAY, SHIM_FRAME());
    return p ? p : marked(NEXT(OP_NEW_ARRAY_AL, new_aligned_fn)(size, align), SHIM_KIND_NEW_ARRAY);
}

/// operator new(size_t, std::align_val_t, const std::nothrow_t&).
SHIM_EXPORT void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t size, size_t align, const nothrow_t *tag) {
    void *p = try_new(OP_NEW_AL_NT, size, align, SHIM_KIND_NEW, SHIM_FRAME());
    return p ? p : marked(NEXT(OP_NEW_AL_NT, new_aligned_nothrow_fn)(size, align, tag), SHIM_KIND_NEW);
}

/// operator new[](size_t, std::align_val_t, const std::nothrow_t&).
SHIM_EXPORT void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t size, size_t align, const nothrow_t *tag) {
    void *p = try_new(OP_NEW_ARRAY_AL_NT, size, align, SHIM_KIND_NEW_ARRAY, SHIM_FRAME());
    return p ? p : marked(NEXT(OP_NEW_ARRAY_AL_NT, new_aligned_nothrow_fn)(size, align, tag), SHIM_KIND_NEW_ARRAY);
}

// Every delete frees its block the way free does, the free stack starting
// at the caller of delete; delete wants a block from new, delete[] one from
// new[] (any form: nothrow, aligned, sized), else the release is an
// alloc_dealloc_mismatch. Stepped aside, each delete goes on to the same
// delete after the shim: an allocator or checker (valgrind's replacement
// operators) pairs its news with its own deletes, and reports a delete[]
// that arrived as free() as a mismatch. libstdc++'s calls free, whose
// pass-through returns blocks the shim handed out before it stepped aside.
// A delete whose libstdc++ form would call the program's delete checks the
// kind, marks the block malloc's (the program's delete calls free, as
// libstdc++'s does) and calls it: `delete[]` of a malloc'd block is still
// reported in a program that replaces only delete (groff's troff).
typedef void (*delete_sized_fn)(void *, size_t);
typedef void (*delete_tagged_fn)(void *, const nothrow_t *);
typedef void (*delete_aligned_sized_fn)(void *, size_t, size_t);
typedef void (*delete_aligned_tagged_fn)(void *, size_t, const nothrow_t *);

// Hands `p` to the program's delete `to`: 1 when it did.
static int to_program(void *to, void *p, unsigned kind) {
    if (!to) return 0;
    if (p && shim_classify(p) == SHIM_LIVE && shim_block_sealed(shim_block_from_user(p))) {
        shim_check_release(p, released_kind(p, kind));
        shim_block_from_user(p)->alloc_kind = SHIM_KIND_MALLOC;
        shim_block_from_user(p)->new_align = 0;  // the program's free releases it: no C++ size
        shim_block_seal(shim_block_from_user(p));
    }
    return 1;
}

// `given_size` and `given_align` are what the form was given (0 when it takes none),
// for shim_delete's new_delete_type_mismatch check.
#define DELETE(name, op, params, type, args, program_args, given_size, given_align)         \
    SHIM_EXPORT void name params {                                                            \
        if (SHIM_DETECTING()) {                                                               \
            void *to = replacement_after(op);                                                 \
            if (to_program(g_program_op[op], p, ops[op].kind)) NEXT(op, type) args;         \
            else if (to_program(to, p, ops[op].kind)) program_args;                           \
            else shim_delete(p, released_kind(p, ops[op].kind), given_size, given_align, SHIM_FRAME()); \
        } else NEXT(op, type) args;                                                         \
    }
#define PLAIN ((delete_fn)to)(p)
#define ALIGNED ((delete_aligned_fn)to)(p, align)

/// operator delete(void*) and delete[](void*).
DELETE(_ZdlPv, OP_DEL, (void *p), delete_fn, (p), PLAIN, 0, 0)
DELETE(_ZdaPv, OP_DEL_ARRAY, (void *p), delete_fn, (p), PLAIN, 0, 0)
/// Sized: operator delete(void*, size_t), delete[](void*, size_t).
DELETE(_ZdlPvm, OP_DEL_SIZED, (void *p, size_t size), delete_sized_fn, (p, size), PLAIN, size, 0)
DELETE(_ZdaPvm, OP_DEL_ARRAY_SIZED, (void *p, size_t size), delete_sized_fn, (p, size), PLAIN, size, 0)
/// operator delete(void*, const std::nothrow_t&) and its delete[].
DELETE(_ZdlPvRKSt9nothrow_t, OP_DEL_NT, (void *p, const nothrow_t *tag), delete_tagged_fn, (p, tag), PLAIN, 0, 0)
DELETE(_ZdaPvRKSt9nothrow_t, OP_DEL_ARRAY_NT, (void *p, const nothrow_t *tag), delete_tagged_fn, (p, tag), PLAIN, 0, 0)
/// operator delete(void*, std::align_val_t) and its delete[].
DELETE(_ZdlPvSt11align_val_t, OP_DEL_AL, (void *p, size_t align), delete_sized_fn, (p, align), ALIGNED, 0, align)
DELETE(_ZdaPvSt11align_val_t, OP_DEL_ARRAY_AL, (void *p, size_t align), delete_sized_fn, (p, align), ALIGNED, 0, align)
/// operator delete(void*, size_t, std::align_val_t) and its delete[].
DELETE(_ZdlPvmSt11align_val_t, OP_DEL_SIZED_AL, (void *p, size_t size, size_t align), delete_aligned_sized_fn, (p, size, align), ALIGNED, size, align)
DELETE(_ZdaPvmSt11align_val_t, OP_DEL_ARRAY_SIZED_AL, (void *p, size_t size, size_t align), delete_aligned_sized_fn, (p, size, align), ALIGNED, size, align)
/// operator delete(void*, std::align_val_t, const std::nothrow_t&) and its delete[].
DELETE(_ZdlPvSt11align_val_tRKSt9nothrow_t, OP_DEL_AL_NT, (void *p, size_t align, const nothrow_t *tag), delete_aligned_tagged_fn, (p, align, tag), ALIGNED, 0, align)
DELETE(_ZdaPvSt11align_val_tRKSt9nothrow_t, OP_DEL_ARRAY_AL_NT, (void *p, size_t align, const nothrow_t *tag), delete_aligned_tagged_fn, (p, align, tag), ALIGNED, 0, align)

// From the shim's constructor: the program's operators and the next ones
// (a `new` before it looks up for itself). A lookup takes the loader's
// lock, which another thread may hold for ever (a dlopen whose library
// constructor waits for this one): no operator call should have to.
void shim_cxx_init(void) {
    if (!__atomic_load_n(&g_looked_up, __ATOMIC_ACQUIRE)) look_up();
}
