import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads a whole regular file of bounded size, for inputs a person names
/// (report files, scenario files): never waits on a FIFO, never reads a
/// directory or device, and refuses a file too large before reading it
/// (a 3 GB file named like a scenario took 12 GB of memory).
public enum RegularFile {
    /// Why the file was not read.
    public enum ReadError: Error, Sendable, Equatable {
        /// open, fstat or read failed with this errno.
        case system(Int32)
        /// It is a directory.
        case directory
        /// It is a FIFO, socket or device.
        case notRegular
        /// Its size in bytes, over the limit.
        case tooLarge(Int64)
    }

    /// The bytes of the regular file at `path`, at most `limit` of them.
    public static func read(_ path: String, limit: Int) throws(ReadError) -> Data {
        let (fd, size) = try openRegular(path)
        defer { close(fd) }
        guard size <= limit else { throw .tooLarge(Int64(size)) }
        return try readAll(fd, from: 0, count: size)
    }

    /// The last `limit` bytes of the regular file at `path` (all of it when
    /// it is smaller) and how many bytes before them were skipped; refused
    /// as `read` refuses, but never for its size: for files another program
    /// appends to without bound (a perf map).
    public static func readTail(_ path: String, limit: Int) throws(ReadError) -> (data: Data, skipped: Int) {
        let (fd, size) = try openRegular(path)
        defer { close(fd) }
        let start = max(0, size - limit)
        return (try readAll(fd, from: start, count: size - start), start)
    }

    // Opens `path` and checks it is a regular file: its fd and size.
    private static func openRegular(_ path: String) throws(ReadError) -> (Int32, Int) {
        // O_NONBLOCK: opening a FIFO would otherwise wait for a writer
        // forever; it is refused below. (For regular files it changes nothing.)
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .system(errno) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { let e = errno; close(fd); throw .system(e) }
        if (st.st_mode & S_IFMT) == S_IFDIR { close(fd); throw .directory }
        guard (st.st_mode & S_IFMT) == S_IFREG else { close(fd); throw .notRegular }
        return (fd, Int(st.st_size))
    }

    // Up to `count` bytes of `fd` from `offset` (fewer when the file is shorter by now).
    private static func readAll(_ fd: Int32, from offset: Int, count: Int) throws(ReadError) -> Data {
        var data = Data(count: count)
        var done = 0
        while done < data.count {
            let n = data.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(offset + done)) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw .system(errno) }
            if n == 0 { break }
            done += n
        }
        return data.prefix(done)
    }
}
