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
#include "shim_heap.h"
#include "shim_lookup.h"

#include <stddef.h>
#include <stdint.h>

#define SHIM_EXPORT __attribute__((visibility("default"), disable_tail_calls))
#define SHIM_FRAME() ((uintptr_t)__builtin_frame_address(0))
#define SHIM_DETECTING() __builtin_expect(shim_mode == SHIM_MODE_DETECT, 1)

// The definition after the shim of the operator `name` (libstdc++'s),
// cached in next_NAME. NULL only if none exists, which no caller of a C++
// operator can meet: its own library defines them.
#define NEXT(name, type) ((type)shim_lookup_next_cached(&next_##name, #name))

typedef struct nothrow_t nothrow_t;  // std::nothrow_t: only passed on by reference
typedef void *(*new_fn)(size_t);
typedef void *(*new_nothrow_fn)(size_t, const nothrow_t *);
typedef void *(*new_aligned_fn)(size_t, size_t);
typedef void *(*new_aligned_nothrow_fn)(size_t, size_t, const nothrow_t *);
typedef void (*delete_fn)(void *);

static void *next__Znwm, *next__Znam, *next__ZnwmRKSt9nothrow_t, *next__ZnamRKSt9nothrow_t;
static void *next__ZnwmSt11align_val_t, *next__ZnamSt11align_val_t;
static void *next__ZnwmSt11align_val_tRKSt9nothrow_t, *next__ZnamSt11align_val_tRKSt9nothrow_t;

// A block for `new` (`kind` SHIM_KIND_NEW) or `new[]` (SHIM_KIND_NEW_ARRAY),
// or NULL to let the next operator decide. Alignments come from the
// compiler (alignof of an over-aligned type: a power of two).
static inline void *try_new(size_t size, size_t align, unsigned kind, uintptr_t fp) {
    if (!SHIM_DETECTING()) return 0;
    // operator new(0) must return a unique pointer: one byte, as libstdc++ asks of malloc.
    return shim_alloc(size ? size : 1, align < 16 ? 16 : align, 0, kind, fp);
}

// A block the next operator found (libstdc++'s, through malloc or
// aligned_alloc, once its new_handler made room) is marked malloc's by the
// shim's malloc; it is new's, and delete must not be a mismatch.
static void *marked(void *p, unsigned kind) {
    if (p && SHIM_DETECTING() && shim_classify(p) == SHIM_LIVE) shim_block_from_user(p)->alloc_kind = kind & 0xffu;
    return p;
}

/// operator new(size_t).
SHIM_EXPORT void *_Znwm(size_t size) {
    void *p = try_new(size, 16, SHIM_KIND_NEW, SHIM_FRAME());
    return p ? p : marked(NEXT(_Znwm, new_fn)(size), SHIM_KIND_NEW);
}

/// operator new[](size_t).
SHIM_EXPORT void *_Znam(size_t size) {
    void *p = try_new(size, 16, SHIM_KIND_NEW_ARRAY, SHIM_FRAME());
    return p ? p : marked(NEXT(_Znam, new_fn)(size), SHIM_KIND_NEW_ARRAY);
}

/// operator new(size_t, const std::nothrow_t&).
SHIM_EXPORT void *_ZnwmRKSt9nothrow_t(size_t size, const nothrow_t *tag) {
    void *p = try_new(size, 16, SHIM_KIND_NEW, SHIM_FRAME());
    return p ? p : marked(NEXT(_ZnwmRKSt9nothrow_t, new_nothrow_fn)(size, tag), SHIM_KIND_NEW);
}

/// operator new[](size_t, const std::nothrow_t&).
SHIM_EXPORT void *_ZnamRKSt9nothrow_t(size_t size, const nothrow_t *tag) {
    void *p = try_new(size, 16, SHIM_KIND_NEW_ARRAY, SHIM_FRAME());
    return p ? p : marked(NEXT(_ZnamRKSt9nothrow_t, new_nothrow_fn)(size, tag), SHIM_KIND_NEW_ARRAY);
}

/// operator new(size_t, std::align_val_t).
SHIM_EXPORT void *_ZnwmSt11align_val_t(size_t size, size_t align) {
    void *p = try_new(size, align, SHIM_KIND_NEW, SHIM_FRAME());
    return p ? p : marked(NEXT(_ZnwmSt11align_val_t, new_aligned_fn)(size, align), SHIM_KIND_NEW);
}

/// operator new[](size_t, std::align_val_t).
SHIM_EXPORT void *_ZnamSt11align_val_t(size_t size, size_t align) {
    void *p = try_new(size, align, SHIM_KIND_NEW_ARRAY, SHIM_FRAME());
    return p ? p : marked(NEXT(_ZnamSt11align_val_t, new_aligned_fn)(size, align), SHIM_KIND_NEW_ARRAY);
}

/// operator new(size_t, std::align_val_t, const std::nothrow_t&).
SHIM_EXPORT void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t size, size_t align, const nothrow_t *tag) {
    void *p = try_new(size, align, SHIM_KIND_NEW, SHIM_FRAME());
    return p ? p : marked(NEXT(_ZnwmSt11align_val_tRKSt9nothrow_t, new_aligned_nothrow_fn)(size, align, tag), SHIM_KIND_NEW);
}

/// operator new[](size_t, std::align_val_t, const std::nothrow_t&).
SHIM_EXPORT void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t size, size_t align, const nothrow_t *tag) {
    void *p = try_new(size, align, SHIM_KIND_NEW_ARRAY, SHIM_FRAME());
    return p ? p : marked(NEXT(_ZnamSt11align_val_tRKSt9nothrow_t, new_aligned_nothrow_fn)(size, align, tag), SHIM_KIND_NEW_ARRAY);
}

// Every delete frees its block the way free does, the free stack starting
// at the caller of delete; delete wants a block from new, delete[] one from
// new[] (any form: nothrow, aligned, sized), else the release is an
// alloc_dealloc_mismatch. Stepped aside, each delete goes on to the same
// delete after the shim: an allocator or checker (valgrind's replacement
// operators) pairs its news with its own deletes, and reports a delete[]
// that arrived as free() as a mismatch. libstdc++'s calls free, whose
// pass-through returns blocks the shim handed out before it stepped aside.
typedef void (*delete_sized_fn)(void *, size_t);
typedef void (*delete_tagged_fn)(void *, const nothrow_t *);
typedef void (*delete_aligned_sized_fn)(void *, size_t, size_t);
typedef void (*delete_aligned_tagged_fn)(void *, size_t, const nothrow_t *);

#define DELETE(name, kind, params, type, args)                             \
    static void *next_##name;                                              \
    SHIM_EXPORT void name params {                                         \
        if (SHIM_DETECTING()) shim_free(p, kind, SHIM_FRAME());            \
        else NEXT(name, type) args;                                        \
    }

/// operator delete(void*) and delete[](void*).
DELETE(_ZdlPv, SHIM_KIND_NEW, (void *p), delete_fn, (p))
DELETE(_ZdaPv, SHIM_KIND_NEW_ARRAY, (void *p), delete_fn, (p))
/// Sized: operator delete(void*, size_t), delete[](void*, size_t).
DELETE(_ZdlPvm, SHIM_KIND_NEW, (void *p, size_t size), delete_sized_fn, (p, size))
DELETE(_ZdaPvm, SHIM_KIND_NEW_ARRAY, (void *p, size_t size), delete_sized_fn, (p, size))
/// operator delete(void*, const std::nothrow_t&) and its delete[].
DELETE(_ZdlPvRKSt9nothrow_t, SHIM_KIND_NEW, (void *p, const nothrow_t *tag), delete_tagged_fn, (p, tag))
DELETE(_ZdaPvRKSt9nothrow_t, SHIM_KIND_NEW_ARRAY, (void *p, const nothrow_t *tag), delete_tagged_fn, (p, tag))
/// operator delete(void*, std::align_val_t) and its delete[].
DELETE(_ZdlPvSt11align_val_t, SHIM_KIND_NEW, (void *p, size_t align), delete_sized_fn, (p, align))
DELETE(_ZdaPvSt11align_val_t, SHIM_KIND_NEW_ARRAY, (void *p, size_t align), delete_sized_fn, (p, align))
/// operator delete(void*, size_t, std::align_val_t) and its delete[].
DELETE(_ZdlPvmSt11align_val_t, SHIM_KIND_NEW, (void *p, size_t size, size_t align), delete_aligned_sized_fn, (p, size, align))
DELETE(_ZdaPvmSt11align_val_t, SHIM_KIND_NEW_ARRAY, (void *p, size_t size, size_t align), delete_aligned_sized_fn, (p, size, align))
/// operator delete(void*, std::align_val_t, const std::nothrow_t&) and its delete[].
DELETE(_ZdlPvSt11align_val_tRKSt9nothrow_t, SHIM_KIND_NEW, (void *p, size_t align, const nothrow_t *tag), delete_aligned_tagged_fn, (p, align, tag))
DELETE(_ZdaPvSt11align_val_tRKSt9nothrow_t, SHIM_KIND_NEW_ARRAY, (void *p, size_t align, const nothrow_t *tag), delete_aligned_tagged_fn, (p, align, tag))
