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

    /// Creates an observation.
    public init(exit: VictimExit, stdout: String = "", stderr: String = "", reports: [ReportStore.Entry] = []) {
        self.exit = exit
        self.stdout = stdout
        self.stderr = stderr
        self.reports = reports
    }
}
