import Faultline
import Foundation

/// How `SuiteRunner` runs scenarios.
public struct RunOptions: Sendable {
    /// Where victims and the agent libraries are built.
    public var buildDirectory: BuildDirectory
    /// Parent of the per-run artifacts folders (`.faultline-artifacts`).
    public var artifactsRoot: String
    /// Scenarios run at the same time.
    public var jobs: Int
    /// Runs per scenario (`--repeat`).
    public var repeatCount: Int
    /// Keep artifacts of passing runs too.
    public var keepArtifacts: Bool
    /// The checks behind `requires:`.
    public var requirements: RequirementRegistry
    /// Runs `memory_limit:` scenarios; nil until the cgroup work provides one.
    public var memoryLimitRunner: (any MemoryLimitRunner)?
    /// Judges runs.
    public var checker: ExpectationChecker
    /// Reruns of a failed run (`--reruns`); one that passes makes the scenario FLAKY.
    public var reruns = 0
    /// Whole-run budget in seconds (`--max-time`): nothing starts after it, and what is left is NOT RUN.
    public var maxTime: Double?
    /// Told each run's report files once they are read, before a passing
    /// run's folder is deleted (`faultline run --html`): the run's folder
    /// name and the files.
    public var reportsRead: (@Sendable (_ run: String, _ entries: [ReportStore.Entry]) -> Void)?

    /// Defaults: one job per core, one run each, artifacts in `./.faultline-artifacts`.
    public init(
        buildDirectory: BuildDirectory, artifactsRoot: String = ".faultline-artifacts",
        jobs: Int = ProcessInfo.processInfo.activeProcessorCount, repeatCount: Int = 1, keepArtifacts: Bool = false,
        requirements: RequirementRegistry = .standard, memoryLimitRunner: (any MemoryLimitRunner)? = nil,
        checker: ExpectationChecker = ExpectationChecker()
    ) {
        self.buildDirectory = buildDirectory
        self.artifactsRoot = artifactsRoot
        self.jobs = max(1, jobs)
        self.repeatCount = max(1, repeatCount)
        self.keepArtifacts = keepArtifacts
        self.requirements = requirements
        self.memoryLimitRunner = memoryLimitRunner
        self.checker = checker
    }
}
