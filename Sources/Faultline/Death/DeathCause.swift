/// Why the process a runner started ended, as far as the evidence shows.
public enum DeathCause: Sendable, Hashable, CustomStringConvertible {
    /// It exited on its own with this code.
    case exited(code: Int32)
    /// It died of a fault signal (SIGSEGV, SIGABRT, SIGBUS, …): a crash.
    case crashed(signal: Int32)
    /// The kernel's OOM killer ended it: SIGKILL, and its memory cgroup's
    /// `oom_kill` counter rose.
    case oomKilled
    /// Another signal ended it (SIGKILL without an `oom_kill` increase, SIGTERM, …).
    case killed(signal: Int32, by: Killer)
    /// The runner's timeout ran out and the runner killed it.
    case timedOut(seconds: Double)

    /// Who sent a signal that was not the OOM killer's.
    public enum Killer: String, Sendable, Hashable, Codable {
        /// The runner itself (a requested kill).
        case runner
        /// Someone outside the runner (another process, a person, the kernel for a reason other than OOM).
        case someoneElse = "someone_else"
    }

    /// A short machine-readable name: `exited`, `crashed`, `oom_kill`, `killed`, `timed_out`.
    public var kind: String {
        switch self {
        case .exited: return "exited"
        case .crashed: return "crashed"
        case .oomKilled: return "oom_kill"
        case .killed: return "killed"
        case .timedOut: return "timed_out"
        }
    }

    public var description: String {
        switch self {
        case .exited(let c): return "exited with code \(c)"
        case .crashed(let s): return "crashed (\(SignalNaming.name(s)))"
        case .oomKilled: return "killed by the kernel's OOM killer"
        case .killed(let s, .runner): return "killed by the runner (\(SignalNaming.name(s)))"
        case .killed(let s, .someoneElse): return "killed by someone else (\(SignalNaming.name(s)), no OOM kill counted)"
        case .timedOut(let t): return "timed out after \(t) s and killed by the runner"
        }
    }
}
