// The memory access of an x86-64 instruction: whether its memory operand
// is read or written, and how many bytes (the crash agent's "READ of size
// 4", crash/fault_access.c). Pure: no memory is read but `code`.
#ifndef FL_INSN_ACCESS_H
#define FL_INSN_ACCESS_H

/// Decodes the x86-64 instruction at `code` (`n` bytes): 1 with `*write`
/// (1 store or read-modify-write, 0 load) and `*size` when it has a memory
/// operand of a kind it knows (moves, ALU operations, compares and tests,
/// SSE and AVX moves); 0 otherwise, or for a register operand.
int fl_decode_memory_access(const unsigned char *code, int n, int *write, int *size);

#endif
