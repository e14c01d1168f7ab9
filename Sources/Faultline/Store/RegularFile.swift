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
        // O_NONBLOCK: opening a FIFO would otherwise wait for a writer
        // forever; it is refused below. (For regular files it changes nothing.)
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .system(errno) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .system(errno) }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw .directory }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .notRegular }
        guard st.st_size <= limit else { throw .tooLarge(Int64(st.st_size)) }
        var data = Data(count: Int(st.st_size))
        var done = 0
        while done < data.count {
            let n = data.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw .system(errno) }
            if n == 0 { break }
            done += n
        }
        return data.prefix(done)
    }
}
