// Verifying the byte pattern of a freed block (0x55 scribble) as it
// leaves the quarantine or at exit: the part of the check that grows with
// the block.
//
// It compares 64 bytes at a time against the pattern held in registers
// (one stream, not memcmp's two: the block and a 4 KiB pattern buffer),
// the tail 16 at a time, and looks for the changed byte only in a 16-byte
// chunk that differs. SSE2 only: release_batch has already loaded the
// block's lines when this runs (it waits on those misses, not on
// compares); glibc's AVX-512 memcmp against a pattern page in its place
// measured the same (issue 29, round 4).
//
// Tried and dropped (issue 29): scribbling with non-temporal stores from
// 1 KiB, so a freed block would not be dragged through the cache. On this
// host (32 MiB of L3) the 16 MB quarantine stays in the cache with
// ordinary stores and the check at release hits it there; streamed, every
// check read memory: the uniform workload took 4.7-6.5 s of CPU against
// 4.8-5.1 s, and with a 64 MB quarantine 5.3-6.8 s against 4.7-4.9 s.
#ifndef SHIM_PATTERN_H
#define SHIM_PATTERN_H

#include <stddef.h>
#include <stdint.h>

/// 16 bytes as two words: one SSE2 (x86-64) or NEON (arm64) register.
typedef uint64_t shim_wide __attribute__((vector_size(16)));

/// Writes `byte` over the `n` bytes at `p`. Up to 128 bytes with
/// overlapping 16-byte stores inline (no call: most blocks of a typical
/// program, and most red zones, are that short, and memset's call and
/// size dispatch cost more than the stores); longer with memset.
static inline void shim_pattern_set(void *p, unsigned char byte, size_t n) {
    unsigned char *d = (unsigned char *)p;
    uint64_t word = 0x0101010101010101ull * byte;
    if (__builtin_expect(n > 128, 0)) { __builtin_memset(d, byte, n); return; }
    if (n >= 16) {
        const shim_wide w = {word, word};
        // Head and tail 16 bytes, then the middle up to 96 more.
        __builtin_memcpy(d, &w, 16);
        __builtin_memcpy(d + n - 16, &w, 16);
        if (n > 32) {
            __builtin_memcpy(d + 16, &w, 16);
            __builtin_memcpy(d + n - 32, &w, 16);
            if (n > 64) {
                __builtin_memcpy(d + 32, &w, 16);
                __builtin_memcpy(d + 48, &w, 16);
                __builtin_memcpy(d + n - 48, &w, 16);
                __builtin_memcpy(d + n - 64, &w, 16);
            }
        }
        return;
    }
    if (n >= 8) { __builtin_memcpy(d, &word, 8); __builtin_memcpy(d + n - 8, &word, 8); return; }
    for (size_t i = 0; i < n; i++) d[i] = byte;
}

/// 1 when the `n` bytes at `p` (at least 16) all equal the byte repeated
/// in `word`: 16 bytes a step, the last step overlapping, differences
/// or-ed together and tested once, so every load is issued without a
/// branch between them and a zone's cold lines are missed at once.
static inline int shim_pattern_holds(const void *p, uint64_t word, size_t n) {
    const unsigned char *s = (const unsigned char *)p;
    const shim_wide w = {word, word};
    shim_wide d = {0, 0}, x;
    for (size_t i = 0; i + 16 < n; i += 16) { __builtin_memcpy(&x, s + i, 16); d |= x ^ w; }
    __builtin_memcpy(&x, s + n - 16, 16);
    d |= x ^ w;
    return (d[0] | d[1]) == 0;
}

/// The offset of the first of the `n` bytes at `p` that is not `byte`, or
/// `n` when all are. Allocation-free and async-signal-safe.
size_t shim_pattern_mismatch(const void *p, unsigned char byte, size_t n);

#endif
