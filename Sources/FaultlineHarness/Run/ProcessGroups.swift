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

    private struct State {
        var groups: Set<pid_t> = []
        /// Set by `killAll`: from then on every group is killed as it registers.
        var closed = false
    }
    private let state = Mutex(State())

    /// Adds a running group; kills it at once after `killAll` (a victim
    /// spawned while the interrupt was being handled would outlive the run).
    func insert(_ pgid: pid_t) {
        state.withLock {
            _ = $0.groups.insert(pgid)
            if $0.closed { kill(-pgid, SIGKILL) }
        }
    }

    /// Kills what is left of `pgid` and forgets it (its leader has ended but
    /// is not reaped yet, so the id is still ours).
    func finish(_ pgid: pid_t) {
        state.withLock {
            kill(-pgid, SIGKILL)
            _ = $0.groups.remove(pgid)
        }
    }

    /// Sends SIGKILL to every registered group and to every group registered
    /// later; returns how many there were.
    @discardableResult
    public func killAll() -> Int {
        state.withLock { s in
            s.closed = true
            for g in s.groups { kill(-g, SIGKILL) }
            return s.groups.count
        }
    }

    /// Whether `killAll` has run.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Number of registered groups.
    public var count: Int { state.withLock { $0.groups.count } }
}

/// Ctrl-C (SIGINT) and SIGTERM handling for `faultline run`: kill every
/// running victim group, say so, and exit with 130 (or 143).
public enum InterruptHandler {
    // Keeps the sources alive; written only by `install`, called once at start-up.
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// Parks the calling thread for good once an interrupt is being handled.
    /// The run's own end (summary, result files, exit 1 for the victims the
    /// interrupt killed) must not race the handler's `exit(130)`: two threads
    /// in `exit` at once ended the runner with 1 about one run in fifty.
    public static func parkIfInterrupted() {
        guard ProcessGroups.shared.isClosed else { return }
        while true { pause() }
    }

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
