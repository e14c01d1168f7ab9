import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Checks, before a suite runs, that the files and folders it will write
/// can be written: a bad path is then one line up front, not a failure of
/// every scenario or an error after the whole suite ran.
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

    /// Creates and removes a file in `folder` (root passes permission checks
    /// that a real write can still fail, e.g. on a read-only file system).
    private static func probe(_ folder: String) -> String? {
        let probe = "\(folder)/.faultline-probe-\(getpid())"
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        close(fd)
        unlink(probe)
        return nil
    }
}
