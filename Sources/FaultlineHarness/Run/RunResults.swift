/// The outcome of a scenario (or of one run of it).
public enum Verdict: String, Sendable, Codable {
    /// Every check held.
    case pass = "PASS"
    /// A check failed, the victim timed out, or it could not run.
    case fail = "FAIL"
    /// Not run: an unmet requirement (the reason says which).
    case skip = "SKIP"
    /// With `--repeat`, some runs passed and some failed; with `--reruns`,
    /// the first run failed and a rerun passed.
    case flaky = "FLAKY"
    /// An `xfail:` scenario failed, as it is known to.
    case xfail = "XFAIL"
    /// An `xfail:` scenario passed: the known gap is closed (strict: a failure).
    case xpass = "XPASS"
    /// Not started: `--max-time` ran out first.
    case notRun = "NOT RUN"

    /// True for verdicts that make `faultline run` exit non-zero; FLAKY
    /// only when `flakyOK` is false.
    public func isFailure(flakyOK: Bool = false) -> Bool {
        switch self {
        case .fail, .xpass, .notRun: return true
        case .flaky: return !flakyOK
        case .pass, .skip, .xfail: return false
        }
    }

    /// True for the verdicts that are listed with their checks (every failed run).
    public var showsFailures: Bool { self == .fail || self == .flaky || self == .xpass }
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
    /// 1-based rerun number (`--reruns`), nil for the first run.
    public var rerunIndex: Int? = nil

    /// The first failure or the skip reason.
    public var reason: String? { skipReason ?? failures.first?.description }
}

/// A scenario's result over all its runs.
public struct ScenarioResult: Sendable {
    /// The scenario.
    public var scenario: Scenario
    /// Its runs, in repeat order, each followed by its reruns; empty when not run.
    public var runs: [RunRecord]
    /// Why it was not started (`--max-time`), when `runs` is empty.
    public var notRunReason: String?

    /// Creates a result.
    public init(scenario: Scenario, runs: [RunRecord], notRunReason: String? = nil) {
        self.scenario = scenario
        self.runs = runs
        self.notRunReason = notRunReason
    }

    /// The verdict, by these rules in order:
    /// 1. no runs: NOT RUN;
    /// 2. every run skipped: SKIP;
    /// 3. with reruns: FLAKY when the last rerun passed, else FAIL;
    /// 4. PASS when every run passed, FAIL when none did, else FLAKY;
    /// 5. an `xfail:` scenario's PASS is XPASS and its FAIL is XFAIL.
    public var verdict: Verdict {
        if runs.isEmpty { return .notRun }
        if runs.allSatisfy({ $0.verdict == .skip }) { return .skip }
        let plain: Verdict
        if runs.contains(where: { $0.rerunIndex != nil }) {
            plain = runs.last?.verdict == .pass ? .flaky : .fail
        } else {
            let passed = runs.filter { $0.verdict == .pass }.count
            plain = passed == runs.count ? .pass : passed == 0 ? .fail : .flaky
        }
        guard scenario.xfail != nil else { return plain }
        return plain == .pass ? .xpass : plain == .fail ? .xfail : plain
    }

    /// Runs that passed and runs that ran (skips excluded).
    public var passRate: (passed: Int, total: Int) {
        (runs.filter { $0.verdict == .pass }.count, runs.filter { $0.verdict != .skip }.count)
    }

    /// Total time of the runs, seconds.
    public var durationSeconds: Double { runs.reduce(0) { $0 + $1.durationSeconds } }

    /// The first failure (or the skip reason), for the table's "why".
    public var reason: String? {
        ScenarioVerdictReason.text(verdict: verdict, runs: runs, xfail: scenario.xfail, notRunReason: notRunReason)
    }
}

/// The "why" of a scenario verdict, shared by runs and merged results.
enum ScenarioVerdictReason {
    /// The reason shown for `verdict`, from the runs it was judged on.
    static func text(verdict: Verdict, runs: [RunRecord], xfail: String?, notRunReason: String?) -> String? {
        let firstFailure = runs.first { $0.verdict == .fail }?.reason
        let passed = runs.filter { $0.verdict == .pass }.count, ran = runs.filter { $0.verdict != .skip }.count
        switch verdict {
        case .pass: return nil
        case .skip: return runs.first?.skipReason
        case .notRun: return notRunReason ?? "not run"
        case .fail: return firstFailure
        case .flaky:
            if runs.contains(where: { $0.rerunIndex != nil }) {
                return "passed on rerun \(runs.last?.rerunIndex ?? 0)" + (firstFailure.map { "; first run: \($0)" } ?? "")
            }
            return "passed \(passed)/\(ran)" + (firstFailure.map { "; \($0)" } ?? "")
        case .xfail: return "xfail: \(xfail ?? "")" + (firstFailure.map { "; \($0)" } ?? "")
        case .xpass: return "xfail: \(xfail ?? ""), but every check held; the gap is closed, remove xfail from the scenario"
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
    /// Every scenario selected before sharding, in suite order (what the
    /// shards of one suite share, so a merge can tell one is missing).
    public var suite: [String]? = nil
    /// This run's shard, nil when not sharded.
    public var shard: Shard? = nil
    /// The `--shuffle` seed, nil when not shuffled.
    public var seed: UInt64? = nil

    /// True when some scenario failed (or was flaky, unless `flakyOK`).
    public func hasFailures(flakyOK: Bool) -> Bool { scenarios.contains { $0.verdict.isFailure(flakyOK: flakyOK) } }

    /// True when some scenario failed or was flaky.
    public var failed: Bool { hasFailures(flakyOK: false) }

    /// How many scenarios got `verdict`.
    public func count(_ verdict: Verdict) -> Int { scenarios.filter { $0.verdict == verdict }.count }
}
