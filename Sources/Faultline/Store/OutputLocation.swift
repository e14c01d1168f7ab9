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
        var st = stat()
        if stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
            return "cannot write \(path): it is a folder"
        }
        let parent = (path as NSString).deletingLastPathComponent
        return probe(parent.isEmpty ? "." : parent).map { "cannot write \(path): \($0)" }
    }

    /// Nil when `path` is a folder a file can be created in, after creating
    /// it and its missing parents; else one line naming the path and the cause.
    public static func problem(folder path: String) -> String? {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                let why = String(cString: strerror(errno))
                return current.hasSuffix(path) ? "cannot create \(path): \(why)" : "cannot create \(path): \(current): \(why)"
            }
        }
        return probe(path).map { "cannot write into \(path): \($0)" }
    }

    /// Writes all of `data` to `path` or nothing (a temporary file renamed
    /// into place). Nil when written; else one line naming the path and why.
    public static func write(_ data: Data, to path: String) -> String? {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            return nil
        } catch {
            let why = (error as NSError).userInfo[NSUnderlyingErrorKey].map { "\($0)" } ?? error.localizedDescription
            return "cannot write \(path): \(why)"
        }
    }

    /// Creates and removes a file in `folder`; nil when that worked, else
    /// why not (strerror). Root passes permission checks that a real write
    /// can still fail, e.g. on a read-only file system.
    static func probe(_ folder: String) -> String? {
        let probe = "\(folder)/.faultline-probe-\(getpid())"
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        close(fd)
        unlink(probe)
        return nil
    }
}
