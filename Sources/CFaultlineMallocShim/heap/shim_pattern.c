#include "shim_pattern.h"

#include <stdint.h>
#include <string.h>

/// 16 bytes, compared as two words (SSE2 on x86-64, NEON on arm64).
typedef uint64_t wide __attribute__((vector_size(16)));

size_t shim_pattern_mismatch(const void *p, unsigned char byte, size_t n) {
    const unsigned char *b = p;
    size_t i = 0;
    // 64 bytes per step against the pattern in a register (no second
    // stream to read, as memcmp against a pattern buffer has).
    uint64_t word = 0x0101010101010101ull * byte;
    wide w = {word, word};
    for (; i + 64 <= n; i += 64) {
        wide x0, x1, x2, x3;
        memcpy(&x0, b + i, 16);
        memcpy(&x1, b + i + 16, 16);
        memcpy(&x2, b + i + 32, 16);
        memcpy(&x3, b + i + 48, 16);
        wide d = (x0 ^ w) | (x1 ^ w) | (x2 ^ w) | (x3 ^ w);
        if (__builtin_expect((d[0] | d[1]) != 0, 0)) break;
    }
    // The changed chunk, or the tail, a byte at a time.
    for (; i < n; i++)
        if (b[i] != byte) return i;
    return n;
}
