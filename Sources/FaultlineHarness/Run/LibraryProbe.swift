import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Finds shared libraries for `library:NAME` (a scenario that preloads
/// another allocator, `libjemalloc.so.2`, needs it installed).
enum LibraryProbe {
    /// Directories the dynamic loader searches by default on Debian-style
    /// systems: the multiarch ones first, then the plain ones.
    static var searchDirectories: [String] {
        var name = utsname()
        uname(&name)
        let machine = withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let triple = "\(machine)-linux-gnu"
        return ["/lib/\(triple)", "/usr/lib/\(triple)", "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib"]
    }

    /// nil when `name` (a file name such as `libjemalloc.so.2`, or a path)
    /// exists where the loader would find it, else what to do.
    static func problem(_ name: String) -> String? {
        if name.contains("/") {
            return FileManager.default.fileExists(atPath: name) ? nil : "needs \(name), which does not exist; install it"
        }
        let dirs = searchDirectories
        if dirs.contains(where: { FileManager.default.fileExists(atPath: "\($0)/\(name)") }) { return nil }
        return "needs the library \(name), which is in none of \(dirs.joined(separator: ", ")); install the package that ships it"
    }
}
