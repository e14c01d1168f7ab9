/// Linux signal numbers and names (x86_64 and aarch64 agree on these).
public enum SignalNames {
    /// Standard signals by number.
    static let table: [Int32: String] = [
        1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS",
        8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE",
        14: "SIGALRM", 15: "SIGTERM", 16: "SIGSTKFLT", 17: "SIGCHLD", 18: "SIGCONT", 19: "SIGSTOP",
        20: "SIGTSTP", 21: "SIGTTIN", 22: "SIGTTOU", 23: "SIGURG", 24: "SIGXCPU", 25: "SIGXFSZ",
        26: "SIGVTALRM", 27: "SIGPROF", 28: "SIGWINCH", 29: "SIGIO", 30: "SIGPWR", 31: "SIGSYS",
    ]

    /// `SIGSEGV` for 11; `signal 40` for numbers without a name.
    public static func name(of number: Int32) -> String { table[number] ?? "signal \(number)" }

    /// The number for `SIGSEGV`, `SEGV` or `11` (case-insensitive); nil when unknown.
    public static func number(of text: String) -> Int32? {
        if let n = Int32(text), n > 0, n < 65 { return n }
        let upper = text.uppercased()
        let name = upper.hasPrefix("SIG") ? upper : "SIG" + upper
        return table.first { $0.value == name }?.key
    }

    /// The canonical name for `text` (`segv` → `SIGSEGV`), nil when unknown.
    public static func canonical(_ text: String) -> String? { number(of: text).map(name(of:)) }
}
