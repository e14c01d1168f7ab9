import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Checks, before a command's work starts, that the files and folders it
/// will write can be written (a bad path is then one line up front, not a
/// failure after the work), and writes such files whole or not at all.
public enum OutputLocation {
    /// Nil when a file can be created at `path` (its folder must exist);
    /// else one line naming the path and the cause.
    public static func problem(writingFile path: String) -> String? {
        if path.isEmpty { return emptyPath }
        var st = stat()
        if stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
            return "cannot write \(path): it is a folder"
        }
        let parent = (path as NSString).deletingLastPathComponent
        return probe(parent.isEmpty ? "." : parent).map { "cannot write \(path): \($0)" }
    }

    /// Nil when `path` is a folder a file can be created in, after creating
    /// it and its missing parents; else one line naming the path and the
    /// cause, and the folders this call created are removed again.
    public static func problem(folder path: String) -> String? {
        if path.isEmpty { return emptyPath }
        var current = path.hasPrefix("/") ? "" : "."
        var created: [String] = []
        defer { for dir in created.reversed() where rmdir(dir) != 0 { break } }
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o755) == 0 {
                created.append(current)
            } else if errno != EEXIST {
                let why = String(cString: strerror(errno))
                return current.hasSuffix(path) ? "cannot create \(path): \(why)" : "cannot create \(path): \(current): \(why)"
            }
        }
        if let why = probe(path) { return "cannot write into \(path): \(why)" }
        created = []
        return nil
    }

    /// Writes all of `data` to `path` or nothing (a temporary file in the
    /// same folder, flushed, renamed into place). Nil when written; else one
    /// line naming the path and why (strerror text, also for a full disk).
    /// `mode` (less the umask) is the file's: 0644 for what a user asked
    /// for, 0600 for artifacts that hold a program's output.
    public static func write(_ data: Data, to path: String, mode: mode_t = 0o644) -> String? {
        if path.isEmpty { return emptyPath }
        var st = stat()
        if stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR { return "cannot write \(path): it is a folder" }
        let parent = (path as NSString).deletingLastPathComponent
        guard let (fd, temporary) = createTemporary(in: parent.isEmpty ? "." : parent) else {
            return "cannot write \(path): \(String(cString: strerror(errno)))"
        }
        var failure: Int32 = 0
        data.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { failure = n < 0 ? errno : ENOSPC; return }
                done += n
            }
        }
        if failure == 0 && fchmod(fd, mode & ~currentUmask()) != 0 { failure = errno }
        if failure == 0 && fsync(fd) != 0 { failure = errno }
        if close(fd) != 0 && failure == 0 { failure = errno }
        if failure == 0 && rename(temporary, path) != 0 { failure = errno }
        guard failure != 0 else { return nil }
        unlink(temporary)
        return "cannot write \(path): \(String(cString: strerror(failure)))"
    }

    /// A new file `.faultline-write-XXXXXXXXXXXXXXXX` in `folder`, open for
    /// writing, and its path; nil with errno set. Like mkstemp(3), but with
    /// O_CLOEXEC (Swift does not see mkostemp): a child that another thread
    /// spawns meanwhile must not inherit the descriptor, or it keeps the file
    /// open for its whole life (and an executable written so is busy, ETXTBSY).
    private static func createTemporary(in folder: String) -> (Int32, String)? {
        for _ in 0..<100 {
            let path = folder + "/.faultline-write-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 { return (fd, path) }
            if errno != EEXIST { return nil }
        }
        return nil
    }

    /// The process's umask (read by setting it and putting it back).
    private static func currentUmask() -> mode_t {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }

    /// The problem with an empty path (`--json ""`): it names no file, and
    /// the folder checks would otherwise look at `/` or `.`.
    static let emptyPath = "an empty path names no file or folder"

    /// Creates a file in `folder`, writes a byte into it and removes it;
    /// nil when that worked, else why not (strerror). Root passes
    /// permission checks that a real write can still fail, e.g. on a
    /// read-only file system; and an empty file fits on a full one, where
    /// the first byte gets ENOSPC.
    static func probe(_ folder: String) -> String? {
        let probe = "\(folder)/.faultline-probe-\(getpid())"
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        var byte: UInt8 = 0x0a
        var written = -1
        repeat { written = Glibc.write(fd, &byte, 1) } while written < 0 && errno == EINTR
        let why = written == 1 ? nil : String(cString: strerror(written < 0 ? errno : ENOSPC))
        close(fd)
        unlink(probe)
        return why
    }
}
