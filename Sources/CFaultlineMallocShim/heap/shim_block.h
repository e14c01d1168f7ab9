// The header the shim puts in front of every block it hands out, and the
// state tag that tells live, quarantined and released blocks apart.
//
//   real allocation  [live link 16 B][align padding][ header 32 B ][ user bytes … ]
//                                                     ^ header       ^ pointer returned
//
// The real allocation is an arena block (shim_arena.h) or, for big and
// over-aligned blocks, a glibc one. The live link exists only for blocks
// allocated while leak tracking was on (shim_live.c), which is decided
// once, before the first allocation that matters, and only ever turns off.
//
// The magic word is the last word before the user bytes and is bound to the
// header's address, so a copy of a header elsewhere (or user data that
// happens to look like one) does not pass as a header.
#ifndef SHIM_BLOCK_H
#define SHIM_BLOCK_H

#include <stddef.h>
#include <stdint.h>

/// Bytes of metadata in front of each block; keeps user pointers 16-aligned.
#define SHIM_HEADER_SIZE 32u

/// Block states, stored xor-ed with the address hash in `magic`.
enum {
    SHIM_LIVE = 0x4c495645u,         ///< handed out, not yet freed
    SHIM_QUARANTINED = 0x51524e54u,  ///< freed, held and scribbled
    SHIM_RELEASED = 0x52454c53u,     ///< returned to the underlying allocator
};

/// How a block was allocated (`alloc_kind`), and so how it must be
/// released: malloc and the rest of its family with free or realloc,
/// operator new with delete, new[] with delete[] (nothrow and aligned forms
/// included). shim_free takes the kind its caller releases as, and a
/// difference is an alloc_dealloc_mismatch.
enum {
    SHIM_KIND_MALLOC = 0,     ///< malloc, calloc, realloc, memalign…: free
    SHIM_KIND_NEW = 1,        ///< operator new: delete
    SHIM_KIND_NEW_ARRAY = 2,  ///< operator new[]: delete[]
};

/// `new_align` of a block that came from the shim's own `new` or `new[]`
/// (shim_cxx_new.c) with the default alignment; SHIM_NEW_ALIGN_DEFAULT + k
/// is an aligned form's 2^k (k >= 3), 0 any other block (malloc's, or a
/// `new` block another allocator made: its size is not the one asked for).
#define SHIM_NEW_ALIGN_DEFAULT 1u

/// The `new_align` code of `align` given to an aligned new or delete (0:
/// an unaligned form). Below 8 counts as the default, as AddressSanitizer
/// counts it; a power of two as the compiler passes (alignof).
static inline uint32_t shim_new_align_code(size_t align) {
    return align < 8 ? SHIM_NEW_ALIGN_DEFAULT : SHIM_NEW_ALIGN_DEFAULT + (uint32_t)(63 - __builtin_clzll(align));
}

/// The alignment a `new_align` code stands for (0: the default).
static inline uint64_t shim_new_align_bytes(uint32_t code) {
    return code > SHIM_NEW_ALIGN_DEFAULT ? 1ull << (code - SHIM_NEW_ALIGN_DEFAULT) : 0;
}

/// Metadata in front of a block. Written only by the shim.
typedef struct shim_block {
    uint32_t alloc_tid : 24;  ///< thread that allocated it (Linux tids are below 2^22)
    uint32_t alloc_kind : 2;  ///< SHIM_KIND_*
    uint32_t new_align : 6;   ///< SHIM_NEW_ALIGN_*: the alignment `new` was given; 0: size and alignment unknown
    uint32_t free_tid;     ///< thread that freed it (0 while live)
    uint64_t size : 48;    ///< size the program asked for (user space is 47 bits)
    uint64_t check : 16;   ///< shim_block_checksum of the fields a corrupt header would turn against the shim
    uint32_t alloc_stack;  ///< stack depot id, 0 when not recorded
    uint32_t free_stack;   ///< stack depot id, 0 while live or not recorded
    uint32_t align_off;    ///< bytes from the real allocation to this header (live link included)
    uint32_t magic;        ///< shim_magic(header, state); accessed atomically
} shim_block;

_Static_assert(sizeof(shim_block) == SHIM_HEADER_SIZE, "header size");

/// Links a live block into its stripe's list (shim_live.c); sits right in
/// front of the header of blocks allocated while leak tracking is on.
typedef struct shim_link {
    struct shim_block *prev;
    struct shim_block *next;
} shim_link;

/// Bytes of a live link (a multiple of 16, so user pointers stay aligned).
#define SHIM_LINK_SIZE 16u
_Static_assert(sizeof(shim_link) == SHIM_LINK_SIZE, "link size");

static inline shim_link *shim_block_link(const shim_block *b) { return (shim_link *)((uintptr_t)b - SHIM_LINK_SIZE); }

/// The address-bound tag for `state` at header `b`.
static inline uint32_t shim_magic(const void *b, uint32_t state) {
    uint64_t x = ((uintptr_t)b >> 4) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(x >> 32) ^ state;
}

/// The state encoded in `magic` for a header at `b` (any value when the
/// word is not one of ours: compare against the SHIM_* constants).
static inline uint32_t shim_state_of(const void *b, uint32_t magic) { return magic ^ shim_magic(b, 0); }

/// A 16-bit checksum (Scudo's way) of a header copy `b` as if at `at`: of the address and of every
/// field but the free-time ones and `magic`: size, align_off, the thread
/// word and the allocation stack. A write in front of a block (an
/// underflow) changes it, so a corrupt size or offset is never followed.
static inline uint32_t shim_block_checksum_at(const shim_block *b, const void *at) {
    uint32_t w0;
    __builtin_memcpy(&w0, b, sizeof w0);
    uint64_t x = ((uintptr_t)at >> 4) * 0x9E3779B97F4A7C15ull;
    x ^= ((uint64_t)w0 << 32 | b->alloc_stack) * 0xC2B2AE3D27D4EB4Full;
    x ^= ((uint64_t)b->size << 16 | (b->align_off & 0xffffu)) * 0x165667B19E3779F9ull;
    x ^= (uint64_t)(b->align_off >> 16) * 0x27D4EB2F165667C5ull;
    return (uint32_t)((x >> 48) ^ (x >> 32) ^ (x >> 16)) & 0xffffu;
}
/// The checksum of header `b` where it lies.
static inline uint32_t shim_block_checksum(const shim_block *b) { return shim_block_checksum_at(b, b); }
/// Seals the header after its fields were set (or changed).
static inline void shim_block_seal(shim_block *b) { b->check = shim_block_checksum(b) & 0xffffu; }
/// 1 when the header's checksum holds.
static inline int shim_block_sealed(const shim_block *b) { return b->check == shim_block_checksum(b); }

/// How a header reads, from a copy `h` of the one at `at`.
typedef enum shim_header_reading {
    SHIM_HEADER_WHOLE,     ///< one of our tags over a checksum that holds
    SHIM_HEADER_UNTAGGED,  ///< a checksum that holds under a tag none of ours: an underflow took the tag
    SHIM_HEADER_UNSEALED,  ///< one of our tags over a failing checksum: an underflow took the fields
    SHIM_HEADER_FOREIGN,   ///< neither: not a header of ours
} shim_header_reading;

/// Reads header copy `h` (at `at`) as free's check and the exit check do;
/// `max_size` bounds the size a whole untagged header may claim (a slot's
/// size in the arena), so random bytes that happen to pass the 16-bit
/// checksum must also look like a block. `*state` receives the tag's state.
static inline shim_header_reading shim_header_read(const shim_block *h, const void *at, uint64_t max_size, uint32_t *state) {
    uint32_t st = shim_state_of(at, h->magic);
    int tagged = st == SHIM_LIVE || st == SHIM_QUARANTINED || st == SHIM_RELEASED;
    int sealed = h->check == shim_block_checksum_at(h, at);
    *state = st;
    if (tagged) return sealed ? SHIM_HEADER_WHOLE : SHIM_HEADER_UNSEALED;
    return sealed && h->alloc_tid && h->size && h->size <= max_size ? SHIM_HEADER_UNTAGGED : SHIM_HEADER_FOREIGN;
}

static inline shim_block *shim_block_from_user(const void *p) { return (shim_block *)((uintptr_t)p - SHIM_HEADER_SIZE); }
static inline void *shim_block_user(const shim_block *b) { return (void *)((uintptr_t)b + SHIM_HEADER_SIZE); }
static inline void *shim_block_real(const shim_block *b) { return (void *)((uintptr_t)b - b->align_off); }

/// Writes a new block's header at `b` for a real allocation at `real` and
/// seals it. Until the caller tags it live it reads as released, so an exit
/// check walking the arena meanwhile (no lock orders the two) takes a fresh
/// slot's half-written header for no wiped one. `kind` carries the `new`
/// alignment code above its two bits (SHIM_KIND_WITH_ALIGN).
static inline void shim_block_begin(shim_block *b, uint64_t size, unsigned kind, uint32_t stack, uint32_t tid, uintptr_t real) {
    __atomic_store_n(&b->magic, shim_magic(b, SHIM_RELEASED), __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    b->alloc_tid = tid & 0xffffffu;
    b->alloc_kind = kind & 3u;
    b->new_align = (kind >> 2) & 63u;
    b->free_tid = 0;
    b->size = size;
    b->alloc_stack = stack;
    b->free_stack = 0;
    b->align_off = (uint32_t)((uintptr_t)b - real);
    shim_block_seal(b);
}

/// One past the highest user-space address (47-bit x86-64, 48-bit arm64).
#if defined(__x86_64__)
#define SHIM_USER_ADDR_END 0x800000000000ull
#else
#define SHIM_USER_ADDR_END 0x1000000000000ull
#endif

/// The pattern of new blocks (not calloc) and of freed blocks.
#define SHIM_FILL_BYTE 0xAA
#define SHIM_SCRIBBLE_BYTE 0x55

#endif
