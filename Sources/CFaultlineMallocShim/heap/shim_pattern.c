#include "shim_pattern.h"

#include <stdint.h>
#include <string.h>

// 1 when the 16 bytes at `p` differ from `w` anywhere.
static inline int differs16(const unsigned char *p, shim_wide w) {
    shim_wide x;
    memcpy(&x, p, 16);
    x ^= w;
    return (x[0] | x[1]) != 0;
}

size_t shim_pattern_mismatch(const void *p, unsigned char byte, size_t n) {
    const unsigned char *b = p;
    size_t i = 0;
    uint64_t word = 0x0101010101010101ull * byte;
    const shim_wide w = {word, word};
    if (n >= 16) {
        // 64 bytes per step against the pattern in a register (no second
        // stream to read, as memcmp against a pattern buffer has).
        for (; i + 64 <= n; i += 64) {
            shim_wide x0, x1, x2, x3;
            memcpy(&x0, b + i, 16);
            memcpy(&x1, b + i + 16, 16);
            memcpy(&x2, b + i + 32, 16);
            memcpy(&x3, b + i + 48, 16);
            shim_wide d = (x0 ^ w) | (x1 ^ w) | (x2 ^ w) | (x3 ^ w);
            if (__builtin_expect((d[0] | d[1]) != 0, 0)) break;
        }
        // Then 16 at a time: the tail of up to 63 bytes (a small block's
        // whole scribble went a byte at a time before), or the 64-byte
        // chunk that differed; the last step overlaps what was compared,
        // whose bytes are known to hold the pattern.
        for (; i + 16 <= n; i += 16)
            if (__builtin_expect(differs16(b + i, w), 0)) goto found;
        if (i == n || !differs16(b + n - 16, w)) return n;
        i = n - 16;
    found:
        for (size_t end = i + 16; i < end; i++)
            if (b[i] != byte) return i;
        return n;  // not reached: the 16 bytes differed
    }
    for (; i < n; i++)
        if (b[i] != byte) return i;
    return n;
}
