import CFaultlineCore
import Testing

/// fl_decode_memory_access, behind a crash report's `signal.access.size`:
/// instructions as compilers and glibc emit them, by their bytes.
@Suite struct InsnAccessTests {
    private func decode(_ bytes: [UInt8]) -> (write: Bool, size: Int)? {
        var write: Int32 = -1, size: Int32 = 0
        let ok = bytes.withUnsafeBufferPointer { fl_decode_memory_access($0.baseAddress, Int32($0.count), &write, &size) }
        return ok == 1 ? (write == 1, Int(size)) : nil
    }

    @Test(arguments: [
        ([0x8b, 0x07], false, 4),                    // mov eax, [rdi]
        ([0x48, 0x8b, 0x47, 0x08], false, 8),        // mov rax, [rdi+8]
        ([0x89, 0x07], true, 4),                     // mov [rdi], eax
        ([0x48, 0x89, 0x07], true, 8),               // mov [rdi], rax
        ([0x66, 0x89, 0x07], true, 2),               // mov [rdi], ax
        ([0xc6, 0x04, 0x08, 0x01], true, 1),         // mov byte [rax+rcx], 1
        ([0x0f, 0xb6, 0x07], false, 1),              // movzx eax, byte [rdi]
        ([0x0f, 0xb7, 0x07], false, 2),              // movzx eax, word [rdi]
        ([0x83, 0x07, 0x01], true, 4),               // add dword [rdi], 1 (read-modify-write)
        ([0x83, 0x3f, 0x00], false, 4),              // cmp dword [rdi], 0
        ([0xf3, 0x0f, 0x6f, 0x06], false, 16),       // movdqu xmm0, [rsi]
        ([0xc5, 0xfe, 0x6f, 0x06], false, 32),       // vmovdqu ymm0, [rsi]
        ([0xc5, 0xfe, 0x7f, 0x07], true, 32),        // vmovdqu [rdi], ymm0
        ([0xf2, 0x0f, 0x11, 0x07], true, 8),         // movsd [rdi], xmm0
    ] as [([UInt8], Bool, Int)])
    func knownAccesses(bytes: [UInt8], write: Bool, size: Int) {
        let got = decode(bytes)
        #expect(got?.write == write && got?.size == size, "\(bytes): \(String(describing: got))")
    }

    @Test func registerOperandsAndUnknownOpcodesSayNothing() {
        #expect(decode([0x89, 0xc0]) == nil)        // mov eax, eax
        #expect(decode([0x0f, 0x0b]) == nil)        // ud2
        #expect(decode([0x48]) == nil)              // a prefix alone
        #expect(decode([]) == nil)
    }
}
