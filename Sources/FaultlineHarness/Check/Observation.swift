import Faultline

/// What one run of a victim produced: the material the checker judges.
public struct Observation: Sendable {
    /// How the victim ended.
    public var exit: VictimExit
    /// Everything it wrote to stdout.
    public var stdout: String
    /// Everything it wrote to stderr.
    public var stderr: String
    /// The files in its report directory, read by `ReportStore`.
    public var reports: [ReportStore.Entry]
    /// The pid of the process the runner started, what `$victim_pid` in a
    /// `match` value stands for; nil when not known.
    public var pid: Int32?

    /// Creates an observation.
    public init(exit: VictimExit, stdout: String = "", stderr: String = "", reports: [ReportStore.Entry] = [], pid: Int32? = nil) {
        self.exit = exit
        self.pid = pid
        self.stdout = stdout
        self.stderr = stderr
        self.reports = reports
    }
}
