import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A small tmpfs mounted at `DIR/full` and filled up by one file, `filler`,
/// so that writing a byte there fails with ENOSPC. Nil when it cannot be
/// mounted (not root, no mount permission in this container).
struct FullFileSystem {
    /// The mount point.
    let path: String

    init?(in dir: String) throws {
        path = "\(dir)/full"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard mount("tmpfs", path, "tmpfs", 0, "size=64k") == 0 else { return nil }
        let fd = open("\(path)/filler", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { unmount(); return nil }
        let page = [UInt8](repeating: 0x61, count: 4096)
        while page.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) > 0 {}
        close(fd)
    }

    /// Unmounts it (lazily, so a test that failed half-way still cleans up).
    func unmount() { umount2(path, Int32(MNT_DETACH)) }
}
