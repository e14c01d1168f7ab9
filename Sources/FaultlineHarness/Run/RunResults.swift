/// The outcome of a scenario (or of one run of it).
public enum Verdict: String, Sendable, Codable {
    /// Every check held.
    case pass = "PASS"
    /// A check failed, the victim timed out, or it could not run.
    case fail = "FAIL"
    /// Not run: an unmet requirement (the reason says which).
    case skip = "SKIP"
    /// With `--repeat`: some runs passed and some failed.
    case flaky = "FLAKY"

    /// True for verdicts that make `faultline run` exit non-zero.
    public var isFailure: Bool { self == .fail || self == .flaky }
}

/// One run of one scenario (one repeat).
public struct RunRecord: Sendable, Codable {
    /// The scenario's name.
    public var scenario: String
    /// 1-based repeat number, nil without `--repeat`.
    public var repeatIndex: Int?
    /// PASS, FAIL or SKIP.
    public var verdict: Verdict
    /// Wall time of the run, seconds.
    public var durationSeconds: Double
    /// How the victim ended (`SIGSEGV`, `exit code 0`, `timed out after 1s`), nil when not started.
    public var exit: String?
    /// Every failed check.
    public var failures: [CheckFailure]
    /// Why the run was skipped.
    public var skipReason: String?
    /// The run's artifacts folder, nil when it was deleted (PASS without `--keep-artifacts`).
    public var artifacts: String?
    /// The victim command line (argv).
    public var command: [String]
    /// The victim's pid (also its process group id), nil when not started.
    public var pid: Int32?
    /// Report files the victim left.
    public var reports: [String]
    /// What the memory limit saw, for scenarios with `memory_limit`.
    public var memoryLimit: MemoryLimitOutcome?

    /// The first failure or the skip reason.
    public var reason: String? { skipReason ?? failures.first?.description }
}

/// A scenario's result over all its runs.
public struct ScenarioResult: Sendable {
    /// The scenario.
    public var scenario: Scenario
    /// Its runs, in repeat order.
    public var runs: [RunRecord]

    /// PASS when every run passed, SKIP when skipped, FAIL when every run
    /// failed, FLAKY when runs disagree.
    public var verdict: Verdict {
        if runs.allSatisfy({ $0.verdict == .skip }) { return .skip }
        let passed = runs.filter { $0.verdict == .pass }.count
        if passed == runs.count { return .pass }
        if passed == 0 { return .fail }
        return .flaky
    }

    /// Runs that passed and runs that ran (skips excluded).
    public var passRate: (passed: Int, total: Int) {
        (runs.filter { $0.verdict == .pass }.count, runs.filter { $0.verdict != .skip }.count)
    }

    /// Total time of the runs, seconds.
    public var durationSeconds: Double { runs.reduce(0) { $0 + $1.durationSeconds } }

    /// The first failure (or the skip reason), for the table's "why".
    public var reason: String? {
        switch verdict {
        case .pass: return nil
        case .skip: return runs.first?.skipReason
        case .fail, .flaky:
            let first = runs.first { $0.verdict == .fail }?.reason
            if verdict == .flaky { return "passed \(passRate.passed)/\(passRate.total)" + (first.map { "; \($0)" } ?? "") }
            return first
        }
    }
}

/// The result of a whole `faultline run`.
public struct SuiteResult: Sendable {
    /// Per scenario, in suite order.
    public var scenarios: [ScenarioResult]
    /// Wall time of the whole run, seconds.
    public var wallSeconds: Double
    /// When the run started (ISO-8601).
    public var startedAt: String
    /// The run's artifacts folder.
    public var artifactsDirectory: String

    /// True when some scenario failed or was flaky.
    public var failed: Bool { scenarios.contains { $0.verdict.isFailure } }

    /// How many scenarios got `verdict`.
    public func count(_ verdict: Verdict) -> Int { scenarios.filter { $0.verdict == verdict }.count }
}
