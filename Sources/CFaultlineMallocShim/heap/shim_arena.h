// The shim's own allocator for small blocks (header included, up to
// SHIM_ARENA_MAX_BLOCK bytes, 16-aligned): size classes, each in its own
// region of one reserved address range, handed out from a per-class free
// list (last released, first reused) or by bumping into fresh pages.
//
// Why not glibc under the quarantine: a freed block comes back only after
// the quarantine has cycled, so glibc's bins, coalescing and consolidation
// run on cold memory for every block (half the shim's time in the synthetic
// benchmark). A released block here is pushed on its class's list while it
// is still in cache from the pattern check, and the next allocation of that
// class takes it. Bigger or over-aligned blocks still come from glibc.
//
// Memory released to a class serves only that class until a whole span of
// it is free; then the scavenger (shim_arena_scavenge.c) gives the span
// back to the kernel.
#ifndef SHIM_ARENA_H
#define SHIM_ARENA_H

#include <stddef.h>
#include <stdint.h>

/// Largest block (header and user bytes) the arena serves. Bigger ones stay
/// with glibc, which coalesces them: memory released to a class serves only
/// that class, so bigger classes cost peak RSS when a program's sizes shift
/// (the synthetic benchmark: +6 MB with 64 KiB). 4.5 KiB since issue 29 (a
/// page-sized buffer with its header and red zone; 1 KiB before): a glibc
/// block costs the shim its released-block table and glibc's bins, where
/// the uniform 16-4111 B workload spent 40 % of its time. A multiple of
/// the last class step (512 bytes above 4 KiB).
#define SHIM_ARENA_MAX_BLOCK 4608u

/// A block of at least `total` bytes, or NULL when `total` is too big or
/// the arena cannot grow (the caller then uses glibc). `*fresh` is 1 for
/// never-used memory, which reads as zeros. Allocation-free (mmap and
/// mprotect only), safe before the constructor and from any thread.
void *shim_arena_alloc(size_t total, int *fresh);
/// Gives back a block shim_arena_alloc returned (owned by the arena).
void shim_arena_free(void *block);
/// shim_arena_free for a headerless block (shim_bare.h): marks its second
/// word released (a value bound to its address), and returns 1 without giving it back
/// when that mark is there already and the block is on the calling thread's
/// cache: a double free (glibc's tcache check, in the same place). Its
/// allocation clears the mark.
int shim_arena_free_bare(void *block);
/// 1 when headerless block `block` carries the released mark and is on the
/// calling thread's cache (freed already).
int shim_arena_released_here(const void *block);
/// Address space per class (the reserved range is SHIM_ARENA_CLASSES of them).
#define SHIM_ARENA_REGION_SIZE (1ull << 30)
/// Number of size classes (16-byte steps to 512 bytes, then 8 per doubling).
#define SHIM_ARENA_CLASSES 57

/// Start of the reserved range, 0 until the first arena allocation. Read
/// on every free, so it is a plain variable the inline functions use.
extern uintptr_t shim_arena_base;
/// Block size of each class, indexed by (address - base) / region size.
extern uint32_t shim_arena_class_sizes[SHIM_ARENA_CLASSES];
/// floor(2^32 / size) + 1 for each class: (offset * it) >> 32 is the slot
/// index of any offset into a span (below 2^16, sizes below 2^15: exact)
/// without a division (shim_arena_at_slot_start).
extern uint64_t shim_arena_class_recip[SHIM_ARENA_CLASSES];

/// 1 once shim_arena_trim gave back the unused part of the reservation:
/// from then on each class owns only the first shim_arena_class_limit
/// bytes of its region, and the rest may hold other mappings.
extern int shim_arena_trimmed;
/// Bytes of each class's region that the arena still holds (the region
/// size until a trim).
extern uint32_t shim_arena_class_limit[SHIM_ARENA_CLASSES];
/// 1 when `p` lies in the arena's reserved range (and, after a trim, in the
/// part of its class's region the arena kept).
static inline int shim_arena_owns(const void *p) {
    uintptr_t off = (uintptr_t)p - shim_arena_base;
    if (!(off < SHIM_ARENA_CLASSES * SHIM_ARENA_REGION_SIZE && shim_arena_base)) return 0;
    if (__builtin_expect(!__atomic_load_n(&shim_arena_trimmed, __ATOMIC_ACQUIRE), 1)) return 1;
    return off % SHIM_ARENA_REGION_SIZE < shim_arena_class_limit[off / SHIM_ARENA_REGION_SIZE];
}
/// The class whose region holds `p` (which the arena owns).
static inline unsigned shim_arena_class_at(const void *p) {
    return (unsigned)(((uintptr_t)p - shim_arena_base) / SHIM_ARENA_REGION_SIZE);
}
/// The index of the slot of class `c` holding byte `in` of its 64 KiB span
/// (spans start at a block and hold whole blocks only): a multiply by the
/// class's reciprocal, no divide.
static inline uint64_t shim_arena_slot_in_span(uint64_t in, unsigned c) { return (in * shim_arena_class_recip[c]) >> 32; }
/// 1 when `p`, which the arena owns, is the first byte of a slot: a
/// headerless block's pointer (a block with a header points 32 or 48 bytes
/// into its slot, never at its start). A multiply and a compare, no divide.
static inline int shim_arena_at_slot_start(const void *p) {
    uintptr_t off = (uintptr_t)p - shim_arena_base;
    unsigned c = (unsigned)(off / SHIM_ARENA_REGION_SIZE);
    uint64_t in = off & 0xffffu;
    return shim_arena_slot_in_span(in, c) * shim_arena_class_sizes[c] == in;
}
/// 1 when the `n` bytes before `p` lie in a part of the arena that has
/// been made readable (so a header there can be read without faulting).
int shim_arena_readable_before(const void *p, size_t n);
/// The size of the arena block at `block` (its class size).
static inline size_t shim_arena_block_size(const void *block) { return shim_arena_class_sizes[shim_arena_class_at(block)]; }
/// The reserved range (lo == hi == 0 until the first arena allocation).
/// After a trim, parts of it may be other mappings (see shim_arena_owns).
void shim_arena_range(uintptr_t *lo, uintptr_t *hi);
/// Gives the never-used part of every class's region back to the kernel
/// (munmap) and stops each class at what it has made writable: blocks that
/// do not fit go to glibc. For a program that lowers its own RLIMIT_AS
/// (`ulimit -v`, setrlimit): the 40 GiB reservation counts against that
/// limit, and every mmap and brk of the process failed after it. Not
/// async-signal-safe (takes the class locks); idempotent.
void shim_arena_trim(void);
/// Bytes made readable and writable so far (all classes).
size_t shim_arena_committed(void);
/// Bytes given back to the kernel so far (shim_arena_scavenge.c).
uint64_t shim_arena_reclaimed_bytes(void);

/// The calling thread is exiting: its cached blocks go back to their
/// classes, and so do the blocks it frees from now on.
void shim_arena_thread_exit(void);

/// 1 when the calling thread holds a class's lock (a signal handler that
/// interrupted the shim is running on it).
int shim_arena_locked_here(void);
/// fork: take every class lock before, release after (parent and child).
void shim_arena_lock_all(void);
void shim_arena_unlock_all(void);

#endif
