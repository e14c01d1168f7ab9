import Foundation
import Synchronization

/// Told about runs as they start and finish (from worker threads).
public protocol RunProgress: Sendable {
    /// A run of `scenario` started (`repeatIndex` is nil without `--repeat`).
    func started(_ scenario: Scenario, repeatIndex: Int?)
    /// A run finished.
    func finished(_ scenario: Scenario, _ record: RunRecord)
}

/// Runs scenarios, `jobs` at a time, each `repeatCount` times (a failed run
/// rerun up to `reruns` times), and collects their results in the order given.
public struct SuiteRunner: Sendable {
    /// How to run.
    public var options: RunOptions

    /// Creates a runner.
    public init(options: RunOptions) {
        self.options = options
    }

    /// Runs `scenarios` and blocks until all have finished. Each run happens
    /// on a dedicated thread (a victim wait blocks its thread).
    public func run(_ scenarios: [Scenario], progress: (any RunProgress)? = nil) -> SuiteResult {
        let startDate = Date()
        let clock = ContinuousClock()
        let start = clock.now
        let runDirectory = Self.makeRunDirectory(root: options.artifactsRoot, date: startDate)
        let work: [(scenario: Int, repeatIndex: Int?)] = scenarios.indices.flatMap { i in
            options.repeatCount == 1 ? [(i, nil)] : (1...options.repeatCount).map { (i, Optional($0)) }
        }
        let deadline = options.maxTime.map { start + .milliseconds(Int64(($0 * 1000).rounded(.up))) }
        let pool = WorkerPool(
            scenarios: scenarios, work: work, options: options, runDirectory: runDirectory, progress: progress, deadline: deadline)
        let group = DispatchGroup()
        for _ in 0..<min(options.jobs, max(1, work.count)) {
            group.enter()
            let worker = Thread { [pool] in
                pool.drain()
                group.leave()
            }
            worker.stackSize = 4 << 20
            worker.start()
        }
        group.wait()

        let records = pool.records()
        var results: [ScenarioResult] = scenarios.map { ScenarioResult(scenario: $0, runs: []) }
        for (k, item) in work.enumerated() { results[item.scenario].runs += records[k] ?? [] }
        if let maxTime = options.maxTime {
            let notStarted = records.filter { $0 == nil }.count
            for i in results.indices where results[i].runs.isEmpty {
                results[i].notRunReason = "not run: --max-time \(Units.describe(seconds: maxTime)) was used up (\(notStarted) of \(work.count) runs never started)"
            }
        }
        // An empty run folder (everything passed) is not worth keeping.
        if let left = try? FileManager.default.contentsOfDirectory(atPath: runDirectory), left.isEmpty {
            try? FileManager.default.removeItem(atPath: runDirectory)
        }
        let elapsed = clock.now - start
        return SuiteResult(
            scenarios: results,
            wallSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            startedAt: ISO8601DateFormatter().string(from: startDate),
            artifactsDirectory: runDirectory)
    }

    /// `ROOT/YYYYMMDD-HHMMSS` (with `-2`, `-3`… when taken), created.
    static func makeRunDirectory(root relativeRoot: String, date: Date) -> String {
        // Absolute: victims start in their own folder, and their stdout and
        // stderr paths are opened after that chdir.
        let root = relativeRoot.hasPrefix("/")
            ? relativeRoot : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(relativeRoot)
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyyMMdd-HHmmss"
        let stamp = f.string(from: date)
        let fm = FileManager.default
        try? fm.createDirectory(atPath: root, withIntermediateDirectories: true)
        var n = 1
        while true {
            let path = (root as NSString).appendingPathComponent(n == 1 ? stamp : "\(stamp)-\(n)")
            // mkdir without intermediates fails when it exists: claims the name atomically.
            if mkdir(path, 0o700) == 0 { return path }
            if !fm.fileExists(atPath: path) { return path }
            n += 1
        }
    }
}

/// The work of one suite run, shared by its worker threads: each takes the
/// next run, executes it, and stores its record in the run's slot.
private final class WorkerPool: Sendable {
    let scenarios: [Scenario]
    let work: [(scenario: Int, repeatIndex: Int?)]
    let options: RunOptions
    let runDirectory: String
    let progress: (any RunProgress)?
    /// `--max-time`: nothing starts after it.
    let deadline: ContinuousClock.Instant?
    let cache = RequirementCache()
    private let next = Mutex(0)
    /// Per work item, its run and reruns; nil when it never started.
    private let slots: Mutex<[[RunRecord]?]>

    init(scenarios: [Scenario], work: [(scenario: Int, repeatIndex: Int?)], options: RunOptions, runDirectory: String,
         progress: (any RunProgress)?, deadline: ContinuousClock.Instant?) {
        self.scenarios = scenarios
        self.work = work
        self.options = options
        self.runDirectory = runDirectory
        self.progress = progress
        self.deadline = deadline
        slots = Mutex(Array(repeating: nil, count: work.count))
    }

    /// False once `--max-time` is used up.
    private var mayStart: Bool { deadline.map { ContinuousClock.now < $0 } ?? true }

    /// Runs work items until none is left.
    func drain() {
        while let k = nextIndex() {
            // After an interrupt, start nothing and record nothing (its
            // victim was killed, not failed): the handler ends the process.
            InterruptHandler.parkIfInterrupted()
            guard mayStart else { continue }
            let item = work[k]
            let scenario = scenarios[item.scenario]
            var attempts: [RunRecord] = []
            // A failed run is rerun at once, up to --reruns times, until one
            // passes; an xfail scenario is expected to fail and is not.
            repeat {
                let rerun = attempts.isEmpty ? nil : attempts.count
                progress?.started(scenario, repeatIndex: item.repeatIndex)
                let record = ScenarioExecution(
                    scenario: scenario, repeatIndex: item.repeatIndex, rerunIndex: rerun, options: options,
                    runDirectory: runDirectory, requirements: cache
                ).run()
                InterruptHandler.parkIfInterrupted()
                attempts.append(record)
                progress?.finished(scenario, record)
            } while attempts.last?.verdict == .fail && scenario.xfail == nil && attempts.count <= options.reruns && mayStart
            slots.withLock { [attempts] in $0[k] = attempts }
        }
    }

    private func nextIndex() -> Int? {
        next.withLock { n in
            guard n < work.count else { return nil }
            defer { n += 1 }
            return n
        }
    }

    /// The records of each work item (nil: never started), by work index.
    func records() -> [[RunRecord]?] { slots.withLock { $0 } }
}
