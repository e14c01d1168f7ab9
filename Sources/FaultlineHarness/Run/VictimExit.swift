/// How a victim process ended.
public enum VictimExit: Sendable, Equatable, CustomStringConvertible {
    /// Normal exit with this status.
    case exited(Int32)
    /// Killed by this signal.
    case signaled(Int32)
    /// Killed by the runner when `seconds` ran out.
    case timedOut(seconds: Double)
    /// Never started (the reason is in the run's failures).
    case notStarted

    /// Decodes a `waitpid` status word (WIFEXITED and friends are macros
    /// Swift cannot import).
    public init(waitStatus status: Int32) {
        let low = status & 0x7f
        if low == 0 { self = .exited((status >> 8) & 0xff) }
        else { self = .signaled(low) }
    }

    public var description: String {
        switch self {
        case .exited(let c): return "exit code \(c)"
        case .signaled(let s): return SignalNames.name(of: s)
        case .timedOut(let s): return "timed out after \(Units.describe(seconds: s))"
        case .notStarted: return "not started"
        }
    }
}
