import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The process groups of victims that are running now, so an interrupt can
/// kill them all. A group is registered from spawn until just before its
/// leader is reaped, and killing happens under the same lock, so a group id
/// is never signalled after the kernel could have reused it.
public final class ProcessGroups: Sendable {
    /// The registry the runner uses.
    public static let shared = ProcessGroups()

    private let groups = Mutex<Set<pid_t>>([])

    /// Adds a running group.
    func insert(_ pgid: pid_t) { groups.withLock { _ = $0.insert(pgid) } }

    /// Kills what is left of `pgid` and forgets it (its leader has ended but
    /// is not reaped yet, so the id is still ours).
    func finish(_ pgid: pid_t) {
        groups.withLock {
            kill(-pgid, SIGKILL)
            _ = $0.remove(pgid)
        }
    }

    /// Sends SIGKILL to every registered group; returns how many there were.
    @discardableResult
    public func killAll() -> Int {
        groups.withLock { set in
            for g in set { kill(-g, SIGKILL) }
            return set.count
        }
    }

    /// Number of registered groups.
    public var count: Int { groups.withLock { $0.count } }
}

/// Ctrl-C (SIGINT) and SIGTERM handling for `faultline run`: kill every
/// running victim group, say so, and exit with 130 (or 143).
public enum InterruptHandler {
    // Keeps the sources alive; written only by `install`, called once at start-up.
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// Installs the handler; `message` is printed to stderr first.
    public static func install(message: @escaping @Sendable (Int32) -> String = { "\nfaultline: interrupted by \(SignalNames.name(of: $0)); killed running victims" }) {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                let killed = ProcessGroups.shared.killAll()
                let text = message(sig) + " (\(killed))\n"
                _ = text.withCString { write(2, $0, strlen($0)) }
                exit(128 + sig)
            }
            source.resume()
            sources.append(source)
        }
    }
}
