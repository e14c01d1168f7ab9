// glibc's malloc settings under the shim: one arena, and an mmap threshold
// that rises for blocks the program grows with realloc (shim_glibc.c). A
// setting the user made through glibc's environment variables or tunables
// is left alone.
#ifndef SHIM_GLIBC_H
#define SHIM_GLIBC_H

#include <stddef.h>
#include <stdint.h>

/// The most glibc accepts as its mmap threshold (half its largest heap),
/// and the ceiling of its own dynamic threshold: blocks this big (header
/// included) are always mappings of their own, their header at the start
/// of the first page.
#define SHIM_GLIBC_MMAP_THRESHOLD_MAX (32u << 20)

/// Applies the settings (once, from the constructor).
void shim_glibc_configure(void);

/// glibc's mmap threshold as the shim knows it: chunks of this many bytes
/// and more are mapped on their own. SIZE_MAX when the user set it (or
/// before start-up): the shim then never changes it.
extern size_t shim_glibc_mmap_threshold;

/// Slow paths of the two calls below.
void shim_glibc_realloc_grew(size_t chunk);
void shim_glibc_mapped_freed(size_t chunk);

/// realloc is about to ask glibc for `total` bytes (header included) for
/// a block it grows.
static inline void shim_glibc_realloc_grows(size_t total) {
    // glibc's chunk: the request and its 8-byte size word, rounded up to 16.
    size_t chunk = (total + 8 + 15) & ~(size_t)15;
    if (__builtin_expect(chunk >= __atomic_load_n(&shim_glibc_mmap_threshold, __ATOMIC_RELAXED), 0)) shim_glibc_realloc_grew(chunk);
}

/// A chunk glibc mapped on its own, `chunk` bytes, is going back to glibc.
static inline void shim_glibc_mapped_freeing(size_t chunk) {
    if (__builtin_expect(chunk > __atomic_load_n(&shim_glibc_mmap_threshold, __ATOMIC_RELAXED), 0)) shim_glibc_mapped_freed(chunk);
}

/// glibc's size of the chunk holding the allocation `real` (its size word,
/// flags cleared).
static inline size_t shim_glibc_chunk_size(const void *real) { return (size_t)(((const uint64_t *)real)[-1] & ~(uint64_t)7); }

#endif
