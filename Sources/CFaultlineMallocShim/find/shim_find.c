#include "shim_find.h"
#include "shim_saferead.h"

#define CHUNK 4096u

static int find(uintptr_t addr, size_t window, shim_found *out, int nearest);

int shim_find_block(uintptr_t addr, size_t window, shim_found *out) { return find(addr, window, out, 0); }

int shim_find_nearest(uintptr_t addr, size_t window, shim_found *out) { return find(addr, window, out, 1); }

static int find(uintptr_t addr, size_t window, shim_found *out, int nearest) {
    out->state = 0;
    if (addr < 4096 + SHIM_HEADER_SIZE || addr >= SHIM_USER_ADDR_END) return 0;
    unsigned char buf[CHUNK];
    uintptr_t buf_lo = 1, buf_hi = 0;  // empty
    uintptr_t first = addr & ~(uintptr_t)15;
    uintptr_t last = first > window ? first - window : 4096;
    // User pointers are 16-aligned; the magic is the word before each.
    for (uintptr_t user = first; user >= last + SHIM_HEADER_SIZE; user -= 16) {
        uintptr_t m = user - 4;
        if (m < buf_lo || m + 4 > buf_hi) {
            uintptr_t hi = m + 4;
            uintptr_t lo = hi >= CHUNK ? hi - CHUNK : 0;
            // Never read across into a page below the one we need unless
            // it is readable: read a page-bounded piece first.
            if (shim_safe_read((void *)lo, buf, hi - lo) != 0) {
                lo = m & ~(uintptr_t)4095;
                if (lo > m) return 0;
                if (shim_safe_read((void *)lo, buf, hi - lo) != 0) return 0;
            }
            buf_lo = lo;
            buf_hi = hi;
        }
        uint32_t magic;
        __builtin_memcpy(&magic, buf + (m - buf_lo), 4);
        shim_block *h = (shim_block *)(user - SHIM_HEADER_SIZE);
        uint32_t st = shim_state_of(h, magic);
        if (st != SHIM_LIVE && st != SHIM_QUARANTINED && st != SHIM_RELEASED) continue;
        // The nearest header decides: the address is inside it or in no block.
        if (st == SHIM_RELEASED) {
            // Not a block any more, but say whose memory it was.
            out->header = h;
            out->state = SHIM_RELEASED;
            out->offset = addr - user;
            if (shim_safe_read(h, &out->copy, sizeof out->copy) != 0) out->state = 0;
            return 0;
        }
        shim_block copy;
        if (shim_safe_read(h, &copy, sizeof copy) != 0) return 0;
        if (copy.magic != magic || (!nearest && addr >= user + copy.size)) return 0;
        out->header = h;
        out->copy = copy;
        out->state = st;
        out->offset = addr - user;
        return 1;
    }
    return 0;
}
