/// Everything a scenario expects to observe. Absent parts are not checked.
public struct ScenarioExpectation: Sendable {
    /// How the victim must end.
    public var exit: ExitExpectation?
    /// The reports, matched one-to-one in any order; nil means "not checked",
    /// `[]` means "no report at all".
    public var reports: [ReportExpectation]?
    /// Texts that must each appear in the victim's stderr.
    public var stderrContains: [String]
    /// Texts that must each appear in the victim's stdout.
    public var stdoutContains: [String]
    /// Texts that must not appear in the victim's stderr (a warning a fix
    /// removed, a line said once that must not be said again).
    public var stderrLacks: [String]

    /// Creates an expectation.
    public init(
        exit: ExitExpectation? = nil, reports: [ReportExpectation]? = nil,
        stderrContains: [String] = [], stdoutContains: [String] = [], stderrLacks: [String] = []
    ) {
        self.exit = exit
        self.reports = reports
        self.stderrContains = stderrContains
        self.stdoutContains = stdoutContains
        self.stderrLacks = stderrLacks
    }
}

/// How the victim process must end.
public enum ExitExpectation: Sendable, Equatable, CustomStringConvertible {
    /// Normal exit with this status.
    case code(Int32)
    /// Killed by this signal (a number; printed by name).
    case signal(Int32)

    public var description: String {
        switch self {
        case .code(let c): return "exit code \(c)"
        case .signal(let s): return SignalNames.name(of: s)
        }
    }
}

/// What one report must contain. Every field that is set is checked.
public struct ReportExpectation: Sendable {
    /// Where the expectation was written (for messages).
    public var source: SourceLocation
    /// The report's `kind`.
    public var kind: String?
    /// The signal name, e.g. `SIGSEGV`.
    public var signal: String?
    /// The `si_code` name, e.g. `SEGV_MAPERR`.
    public var code: String?
    /// The crashed thread's name.
    public var thread: String?
    /// Function names that must appear, in this order (innermost first), in
    /// the crashed thread's symbolicated frames; each is a substring match.
    public var frames: [String]
    /// Dotted paths into the report JSON and what must be found there.
    public var match: [PathMatch]
    /// Most milliseconds the detection may take.
    public var maxDetectionMs: Double?

    /// Creates an expectation.
    public init(
        source: SourceLocation, kind: String? = nil, signal: String? = nil, code: String? = nil,
        thread: String? = nil, frames: [String] = [], match: [PathMatch] = [], maxDetectionMs: Double? = nil
    ) {
        self.source = source
        self.kind = kind
        self.signal = signal
        self.code = code
        self.thread = thread
        self.frames = frames
        self.match = match
        self.maxDetectionMs = maxDetectionMs
    }

    /// True when a check needs symbolicated frames (`frames`, or a `match`
    /// path that goes through `symbol`).
    public var needsSymbols: Bool {
        !frames.isEmpty || match.contains { $0.mentionsSymbols }
    }
}

/// One `match:` entry: a path into the report JSON and the expected value.
public struct PathMatch: Sendable {
    /// The path as written, e.g. `threads[0].name`.
    public var path: JSONPath
    /// What must be found there.
    public var expected: MatchValue

    /// Creates an entry.
    public init(path: JSONPath, expected: MatchValue) {
        self.path = path
        self.expected = expected
    }

    /// True when the path or a nested path names `symbol`.
    var mentionsSymbols: Bool { path.mentions("symbol") || expected.mentionsKey("symbol") }
}

/// An expected value in `match:`.
public indirect enum MatchValue: Sendable, CustomStringConvertible {
    /// A substring of the string found.
    case string(String)
    /// Equal to the number found.
    case number(Double)
    /// Equal to the boolean found.
    case bool(Bool)
    /// The path is absent or null.
    case null
    /// The array found has, for each of these, a distinct element matching it.
    case contains([MatchValue])
    /// The object found matches each of these paths (relative to it).
    case object([PathMatch])
    /// Equal to the pid of the process the runner started (`$victim_pid`),
    /// which a scenario cannot write as a number.
    case victimPid

    /// How `$victim_pid` is written in a scenario.
    public static let victimPidSpelling = "$victim_pid"

    public var description: String {
        switch self {
        case .string(let s): return "\"\(s)\""
        case .number(let n): return formatNumber(n)
        case .bool(let b): return String(b)
        case .null: return "null"
        case .contains(let items): return "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .object(let entries): return "{" + entries.map { "\($0.path): \($0.expected)" }.joined(separator: ", ") + "}"
        case .victimPid: return Self.victimPidSpelling
        }
    }

    /// True when `$victim_pid` is this value or inside it.
    var mentionsVictimPid: Bool {
        switch self {
        case .victimPid: return true
        case .contains(let items): return items.contains { $0.mentionsVictimPid }
        case .object(let entries): return entries.contains { $0.expected.mentionsVictimPid }
        default: return false
        }
    }

    func mentionsKey(_ key: String) -> Bool {
        switch self {
        case .contains(let items): return items.contains { $0.mentionsKey(key) }
        case .object(let entries): return entries.contains { $0.path.mentions(key) || $0.expected.mentionsKey(key) }
        default: return false
        }
    }
}

/// Prints integral numbers without a fraction.
func formatNumber(_ n: Double) -> String {
    if n.rounded() == n, abs(n) < 1e15 { return String(Int64(n)) }
    return String(n)
}
