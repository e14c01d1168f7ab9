import Foundation

/// The last perf map a `Symbolicator` (and its copies) parsed, kept while
/// the file is unchanged (`FileIdentity`): `faultline exec` printing many
/// reports of one process parses its map once, not once per report (a
/// 64 MiB map takes seconds). One map only, so memory stays one file's
/// worth however many processes a run had. Safe to use from several threads.
final class PerfMapCache: @unchecked Sendable {
    private let lock = NSLock()
    private var last: (path: String, identity: FileIdentity, map: PerfMap)?

    /// The map at `path`, parsed by `parse` unless the file is the one
    /// parsed last time; nil when `parse` gives nil.
    func map(at path: String, parse: () -> PerfMap?) -> PerfMap? {
        guard let identity = FileIdentity(path: path) else { return parse() }
        lock.lock()
        if let last, last.path == path, last.identity == identity {
            lock.unlock()
            return last.map
        }
        lock.unlock()
        guard let map = parse() else { return nil }
        lock.lock()
        last = (path, identity, map)
        lock.unlock()
        return map
    }
}
