import Foundation

/// When a file was created, from statx(2)'s `stx_btime`. Foundation's
/// `creationDate` on Linux is the modification time, and glibc's `statx`
/// is not in Swift's Glibc module, so it is called by its symbol.
enum FileBirthTime {
    /// The birth time of `path`, nil when the file system does not keep one
    /// (or the file cannot be read).
    static func of(_ path: String) -> Date? {
        typealias Fn = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UInt32, UnsafeMutableRawPointer) -> Int32
        guard let sym = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "statx") else { return nil }
        // struct statx is 256 bytes; stx_mask at 0, stx_btime (i64 seconds,
        // u32 nanoseconds) at 80 (linux/stat.h).
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 8)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: 256)
        let statxBtime: UInt32 = 0x800
        let status = path.withCString { unsafeBitCast(sym, to: Fn.self)(AT_FDCWD, $0, 0, statxBtime, buffer) }
        guard status == 0, buffer.load(fromByteOffset: 0, as: UInt32.self) & statxBtime != 0 else { return nil }
        let seconds = buffer.load(fromByteOffset: 80, as: Int64.self)
        let nanoseconds = buffer.load(fromByteOffset: 88, as: UInt32.self)
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9)
    }
}
