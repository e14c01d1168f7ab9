import Faultline
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A run's artifacts are private like reports (mode 0700 folders, 0600
/// files): they hold the program's output, its environment and reports.
enum ArtifactFiles {
    /// Creates `path` (mode 0700; its parent must exist) as a new folder:
    /// nil when this call made it, else one line saying why not. A name
    /// that exists already is refused, so the run only ever writes into
    /// and deletes folders it made.
    static func makeFolder(_ path: String) -> String? {
        if mkdir(path, 0o700) == 0 { return nil }
        let why = errno == EEXIST ? "it exists already (a name used twice, or a link planted there)" : String(cString: strerror(errno))
        return "cannot create \(path): \(why)"
    }

    /// Writes `data` to `path` whole or not at all, mode 0600; nil when
    /// written, else one line naming the path and why.
    static func write(_ data: Data, to path: String) -> String? {
        OutputLocation.write(data, to: path, mode: 0o600)
    }
}
