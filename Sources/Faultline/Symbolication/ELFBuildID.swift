#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the GNU build-id note (`NT_GNU_BUILD_ID`) of an ELF file on disk,
/// so the symbolicator can tell whether the file at an image's path is still
/// the one that was loaded when the report was written.
///
/// Handles 32- and 64-bit, little- and big-endian files. Note sections are
/// searched first (separate `.debug` files keep them while their program
/// headers may point at nothing), then `PT_NOTE` segments.
public enum ELFBuildID {
    /// Most bytes read from one note section or segment.
    static let maxNoteBytes = 1 << 16

    /// The build-id of the ELF file at `path` as lower-case hex, or nil when
    /// the file cannot be read, is not ELF, or has no build-id note.
    public static func read(path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return read(fd: fd)
    }

    /// The build-id of the ELF file open at `fd`, as in `read(path:)`.
    static func read(fd: Int32) -> String? {
        guard let ident = readBytes(fd, 0, 64), ident.count >= 52,
              ident[0] == 0x7f, ident[1] == UInt8(ascii: "E"), ident[2] == UInt8(ascii: "L"), ident[3] == UInt8(ascii: "F")
        else { return nil }
        let is64: Bool
        switch ident[4] {
        case 1: is64 = false
        case 2: is64 = true
        default: return nil
        }
        let little: Bool
        switch ident[5] {
        case 1: little = true
        case 2: little = false
        default: return nil
        }
        if is64 && ident.count < 64 { return nil }
        let r = FieldReader(little: little)
        let header = ELFHeader(ident, is64: is64, r: r)
        if let id = fromSections(fd, header, r) { return id }
        return fromSegments(fd, header, r)
    }

    /// The fields of the ELF header this reader needs.
    private struct ELFHeader {
        var is64: Bool
        var phoff: UInt64, phentsize: Int, phnum: Int
        var shoff: UInt64, shentsize: Int, shnum: Int

        init(_ b: [UInt8], is64: Bool, r: FieldReader) {
            self.is64 = is64
            if is64 {
                phoff = r.u64(b, 32); shoff = r.u64(b, 40)
                phentsize = Int(r.u16(b, 54)); phnum = Int(r.u16(b, 56))
                shentsize = Int(r.u16(b, 58)); shnum = Int(r.u16(b, 60))
            } else {
                phoff = UInt64(r.u32(b, 28)); shoff = UInt64(r.u32(b, 32))
                phentsize = Int(r.u16(b, 42)); phnum = Int(r.u16(b, 44))
                shentsize = Int(r.u16(b, 46)); shnum = Int(r.u16(b, 48))
            }
        }
    }

    private static func fromSections(_ fd: Int32, _ h: ELFHeader, _ r: FieldReader) -> String? {
        guard h.shoff != 0, h.shentsize >= (h.is64 ? 64 : 40) else { return nil }
        var count = h.shnum
        if count == 0 {
            // More than 0xff00 sections: the real count is section 0's size.
            guard let s0 = readBytes(fd, h.shoff, h.shentsize) else { return nil }
            // Checked: a u64 from the file above Int.max would trap.
            count = Int(exactly: h.is64 ? r.u64(s0, 32) : UInt64(r.u32(s0, 20))) ?? 0
        }
        guard count > 0, count < 1 << 16, let table = readBytes(fd, h.shoff, count * h.shentsize) else { return nil }
        for i in 0..<count {
            let o = i * h.shentsize
            let type = r.u32(table, o + 4)
            guard type == 7 /* SHT_NOTE */ else { continue }
            let offset = h.is64 ? r.u64(table, o + 24) : UInt64(r.u32(table, o + 16))
            let size = h.is64 ? r.u64(table, o + 32) : UInt64(r.u32(table, o + 20))
            let align = h.is64 ? r.u64(table, o + 48) : UInt64(r.u32(table, o + 32))
            if let id = scanNotes(fd, offset, size, align, r) { return id }
        }
        return nil
    }

    private static func fromSegments(_ fd: Int32, _ h: ELFHeader, _ r: FieldReader) -> String? {
        guard h.phoff != 0, h.phnum > 0, h.phentsize >= (h.is64 ? 56 : 32),
              let table = readBytes(fd, h.phoff, h.phnum * h.phentsize)
        else { return nil }
        for i in 0..<h.phnum {
            let o = i * h.phentsize
            guard r.u32(table, o) == 4 /* PT_NOTE */ else { continue }
            let offset = h.is64 ? r.u64(table, o + 8) : UInt64(r.u32(table, o + 4))
            let size = h.is64 ? r.u64(table, o + 32) : UInt64(r.u32(table, o + 16))
            let align = h.is64 ? r.u64(table, o + 48) : UInt64(r.u32(table, o + 28))
            if let id = scanNotes(fd, offset, size, align, r) { return id }
        }
        return nil
    }

    /// Walks the notes in `size` bytes at `offset`; returns the GNU build-id.
    private static func scanNotes(_ fd: Int32, _ offset: UInt64, _ size: UInt64, _ align: UInt64, _ r: FieldReader) -> String? {
        guard size >= 12, size <= UInt64(maxNoteBytes), let notes = readBytes(fd, offset, Int(size)) else { return nil }
        // Notes are padded to 4 bytes, or 8 in sections aligned to 8.
        let pad = align == 8 ? 8 : 4
        func rounded(_ n: Int) -> Int { (n + pad - 1) / pad * pad }
        var o = 0
        while o + 12 <= notes.count {
            let namesz = Int(r.u32(notes, o)), descsz = Int(r.u32(notes, o + 4)), type = r.u32(notes, o + 8)
            let nameStart = o + 12
            let descStart = nameStart + rounded(namesz)
            guard namesz < notes.count, descsz < notes.count, descStart + descsz <= notes.count else { return nil }
            if type == 3 /* NT_GNU_BUILD_ID */, namesz == 4,
               Array(notes[nameStart..<nameStart + 4]) == [0x47, 0x4e, 0x55, 0] /* "GNU\0" */, descsz > 0
            {
                return notes[descStart..<descStart + descsz].map { byte in
                    let s = String(byte, radix: 16)
                    return s.count == 1 ? "0" + s : s
                }.joined()
            }
            o = descStart + rounded(descsz)
        }
        return nil
    }

    /// Reads exactly `count` bytes at `offset`, nil on a short read.
    private static func readBytes(_ fd: Int32, _ offset: UInt64, _ count: Int) -> [UInt8]? {
        guard count > 0, count <= 1 << 24, offset < UInt64(Int64.max) else { return nil }
        var buf = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = buf.withUnsafeMutableBytes { p in
                pread(fd, p.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            done += n
        }
        // The ELF header read asks for 64 bytes; a 32-bit file may be shorter.
        return done == count || (offset == 0 && done >= 52) ? Array(buf[0..<done]) : nil
    }

    /// Reads integers of the file's byte order at byte offsets.
    private struct FieldReader {
        var little: Bool
        func u16(_ b: [UInt8], _ o: Int) -> UInt16 { UInt16(truncatingIfNeeded: read(b, o, 2)) }
        func u32(_ b: [UInt8], _ o: Int) -> UInt32 { UInt32(truncatingIfNeeded: read(b, o, 4)) }
        func u64(_ b: [UInt8], _ o: Int) -> UInt64 { read(b, o, 8) }
        private func read(_ b: [UInt8], _ o: Int, _ n: Int) -> UInt64 {
            guard o >= 0, o + n <= b.count else { return 0 }
            var v: UInt64 = 0
            for i in 0..<n {
                let byte = UInt64(b[little ? o + n - 1 - i : o + i])
                v = v << 8 | byte
            }
            return v
        }
    }
}
