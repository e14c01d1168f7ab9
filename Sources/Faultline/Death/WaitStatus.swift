/// How a process ended, as `waitpid` (or a zombie's `/proc/PID/stat`
/// `exit_code`) reports it.
public enum WaitStatus: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Normal exit with this code.
    case exited(Int32)
    /// Ended by this signal.
    case signaled(Int32)

    /// Decodes a wait status word (`WIFEXITED` and friends are macros Swift
    /// cannot import).
    public init(rawStatus status: Int32) {
        let low = status & 0x7f
        self = low == 0 ? .exited((status >> 8) & 0xff) : .signaled(low)
    }

    public var description: String {
        switch self {
        case .exited(let c): return "exit code \(c)"
        case .signaled(let s): return "killed by \(SignalNaming.name(s))"
        }
    }
}

/// Signal names for classification messages (the harness has its own
/// table; the library must not depend on it).
public enum SignalNaming {
    /// "SIGKILL" for 9, "signal N" when unknown.
    public static func name(_ sig: Int32) -> String {
        let names: [Int32: String] = [
            1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE",
            9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM",
            24: "SIGXCPU", 25: "SIGXFSZ", 31: "SIGSYS",
        ]
        return names[sig] ?? "signal \(sig)"
    }

    /// Signals the kernel sends for a fault in the program itself (and
    /// `abort`): dying by one of these is a crash.
    public static let crashSignals: Set<Int32> = [4, 5, 6, 7, 8, 11, 31]
}
