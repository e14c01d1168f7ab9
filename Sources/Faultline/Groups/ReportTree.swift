import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The report files under a folder, at any depth (many runs, many
/// machines' artifacts copied together): `*.json` files, names starting
/// with `.` skipped (temporary files, indexes). Plain readdir and fstatat,
/// so that 100 000 files are listed in a fraction of a second.
public enum ReportTree {
    /// One file found.
    public struct File: Sendable {
        /// Its path (the folder's path joined with `relative`).
        public var path: String
        /// Its path relative to the folder.
        public var relative: String
        /// Size in bytes.
        public var size: Int64
        /// Last modification, nanoseconds since the epoch.
        public var mtimeNs: Int64
    }

    /// A folder that cannot be read.
    public struct ReadError: Error, CustomStringConvertible {
        /// The folder.
        public var path: String
        /// strerror of the failure.
        public var reason: String
        public var description: String { "cannot read report folder \(path): \(reason); check the path" }
    }

    /// Every report file under `root`, sorted by relative path. Throws only
    /// when `root` itself cannot be opened; a subfolder that cannot is passed over.
    public static func files(under root: String) throws(ReadError) -> [File] {
        guard let top = opendir(root) else { throw ReadError(path: root, reason: String(cString: strerror(errno))) }
        var out: [File] = []
        walk(top, path: root, relative: "", into: &out)
        return out.sorted { $0.relative < $1.relative }
    }

    private static func walk(_ dir: OpaquePointer, path: String, relative: String, into out: inout [File]) {
        defer { closedir(dir) }
        eachEntry(dir) { name, st in
            let childPath = path.hasSuffix("/") ? path + name : path + "/" + name
            let childRelative = relative.isEmpty ? name : relative + "/" + name
            if (st.st_mode & S_IFMT) == S_IFDIR {
                if let sub = opendir(childPath) { walk(sub, path: childPath, relative: childRelative, into: &out) }
            } else if (st.st_mode & S_IFMT) == S_IFREG, name.hasSuffix(".json") {
                out.append(File(path: childPath, relative: childRelative, size: Int64(st.st_size), mtimeNs: nanoseconds(st.st_mtim)))
            }
        }
    }

    /// Calls `body` with each entry of `dir` whose name does not start with
    /// "." and its `fstatat`, in readdir order; entries that cannot be
    /// stat'ed are left out.
    static func eachEntry(_ dir: OpaquePointer, _ body: (String, stat) -> Void) {
        let fd = dirfd(dir)
        while let ent = readdir(dir) {
            let name = withUnsafePointer(to: &ent.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasPrefix(".") { continue }
            var st = stat()
            guard fstatat(fd, name, &st, 0) == 0 else { continue }
            body(name, st)
        }
    }

    /// A file time as nanoseconds since the epoch.
    static func nanoseconds(_ t: timespec) -> Int64 { Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec) }
}
