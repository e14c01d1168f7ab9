#include "insn_access.h"

// x86-64 opcodes with a ModRM memory operand whose direction and width are
// plain: moves, ALU operations (read-modify-write counts as a write, as
// AddressSanitizer counts it), compares and tests, SSE and AVX moves.
// Anything else is "unknown" rather than a guess.
int fl_decode_memory_access(const unsigned char *c, int n, int *write, int *size) {
    int i = 0, opsize16 = 0, rep = 0, repne = 0, rexw = 0;
    for (; i < n; i++) {
        unsigned char b = c[i];
        if (b == 0x66) opsize16 = 1;
        else if (b == 0xF3) rep = 1;
        else if (b == 0xF2) repne = 1;
        else if (b == 0x67 || b == 0xF0 || b == 0x2E || b == 0x36 || b == 0x3E || b == 0x26 || b == 0x64 || b == 0x65) continue;
        else break;
    }
    if (i >= n) return 0;
    int vex = 0, vex_l = 0;
    if (c[i] >= 0x40 && c[i] <= 0x4F) { rexw = (c[i] & 8) != 0; i++; }
    else if ((c[i] == 0xC5 && i + 2 < n) || (c[i] == 0xC4 && i + 3 < n && (c[i + 1] & 0x1f) == 1)) {
        // VEX: L is the vector length, pp the implied 66/F3/F2 prefix.
        unsigned last = c[i] == 0xC5 ? c[i + 1] : c[i + 2];
        if (c[i] == 0xC4) rexw = last >> 7;
        vex = 1;
        vex_l = (last >> 2) & 1;
        opsize16 = (last & 3) == 1;
        rep = (last & 3) == 2;
        repne = (last & 3) == 3;
        i += c[i] == 0xC5 ? 2 : 3;
    }
    if (i >= n) return 0;
    int v = rexw ? 8 : opsize16 ? 2 : 4;  // the operand size of a "v" operand
    int two = 0;
    unsigned op = c[i++];
    if (vex) two = 1;
    else if (op == 0x0F) { if (i >= n) return 0; op = c[i++]; two = 1; }
    // String instructions have no ModRM.
    if (!two && (op == 0xAA || op == 0xAB)) { *write = 1; *size = op == 0xAA ? 1 : v; return 1; }
    if (!two && (op == 0xAC || op == 0xAD)) { *write = 0; *size = op == 0xAC ? 1 : v; return 1; }
    if (i >= n) return 0;
    unsigned modrm = c[i], mod = modrm >> 6, reg = (modrm >> 3) & 7;
    if (mod == 3) return 0;  // a register operand: the fault was not this operand's
    int w = -1, s = 0;
    if (!two) {
        if (op <= 0x3F && (op & 7) < 4 && op != 0x0F) {
            int cmp = (op & 0xF8) == 0x38;
            w = (op & 2) || cmp ? 0 : 1;
            s = op & 1 ? v : 1;
        } else switch (op) {
        case 0x88: w = 1; s = 1; break;
        case 0x89: w = 1; s = v; break;
        case 0x8A: w = 0; s = 1; break;
        case 0x8B: w = 0; s = v; break;
        case 0x63: w = 0; s = 4; break;
        case 0x84: w = 0; s = 1; break;
        case 0x85: w = 0; s = v; break;
        case 0x86: w = 1; s = 1; break;
        case 0x87: w = 1; s = v; break;
        case 0xC6: w = 1; s = 1; break;
        case 0xC7: w = 1; s = v; break;
        case 0x80: case 0x82: w = reg != 7; s = 1; break;
        case 0x81: case 0x83: w = reg != 7; s = v; break;
        case 0xF6: case 0xF7: w = reg == 2 || reg == 3; s = op == 0xF6 ? 1 : v; break;
        case 0xFE: if (reg <= 1) { w = 1; s = 1; } break;
        case 0xFF:
            if (reg <= 1) { w = 1; s = v; }
            else if (reg == 2 || reg == 4 || reg == 6) { w = 0; s = 8; }
            break;
        case 0xD0: case 0xD2: w = 1; s = 1; break;
        case 0xD1: case 0xD3: case 0xC1: w = 1; s = v; break;
        case 0xC0: w = 1; s = 1; break;
        default: break;
        }
    } else {
        int vec = vex ? (vex_l ? 32 : 16) : 16;
        switch (op) {
        case 0xB6: case 0xBE: w = 0; s = 1; break;
        case 0xB7: case 0xBF: w = 0; s = 2; break;
        case 0xB0: w = 1; s = 1; break;
        case 0xB1: case 0xC1: w = 1; s = v; break;
        case 0x10: case 0x11:
            w = op == 0x11; s = rep ? 4 : repne ? 8 : vec; break;
        case 0x28: case 0x29: w = op == 0x29; s = vec; break;
        case 0x6F: case 0x7F: w = op == 0x7F; s = opsize16 || rep ? vec : 8; break;
        case 0xE7: case 0x2B: w = 1; s = vec; break;
        case 0xD6: if (opsize16) { w = 1; s = 8; } break;
        case 0x7E: if (rep) { w = 0; s = 8; } else if (opsize16) { w = 1; s = rexw ? 8 : 4; } break;
        case 0x6E: w = 0; s = rexw ? 8 : 4; break;
        case 0x74: case 0x75: case 0x76: case 0xDA: case 0xDE: case 0xEB: case 0xEF: case 0xDB: case 0xD7:
            w = 0; s = vec; break;
        default: break;
        }
    }
    if (w < 0 || s == 0) return 0;
    *write = w;
    *size = s;
    return 1;
}
