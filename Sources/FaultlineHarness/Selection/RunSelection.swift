import Foundation

/// Which scenarios a `faultline run` starts, and in what order: the
/// filtered suite, narrowed to the last failures (`--last-failed`), cut to
/// one shard (`--shard` or the gtest/Bazel variables), then ordered
/// (`--failed-first` or `--shuffle`). Shards are cut before ordering, so
/// the order never changes which shard a scenario is in.
public struct RunSelection: Sendable {
    /// What `--last-failed`, `--failed-first` and `--shuffle` ask for.
    public enum Order: Sendable, Equatable {
        /// Suite order.
        case suite
        /// Previous failures first.
        case failedFirst
        /// Shuffled with this seed.
        case shuffled(seed: UInt64)
    }

    /// Run only what failed last time.
    public var lastFailed = false
    /// The start order.
    public var order = Order.suite
    /// This run's shard, nil for the whole selection.
    public var shard: Shard?
    /// The timings file that balances shards.
    public var timingsPath: String
    /// The previous run's results (`last-run.json`).
    public var previousRunPath: String

    /// Creates a selection.
    public init(lastFailed: Bool = false, order: Order = .suite, shard: Shard? = nil, timingsPath: String, previousRunPath: String) {
        self.lastFailed = lastFailed
        self.order = order
        self.shard = shard
        self.timingsPath = timingsPath
        self.previousRunPath = previousRunPath
    }

    /// What to run.
    public struct Plan: Sendable {
        /// The scenarios of this run (this shard), in start order.
        public var scenarios: [Scenario]
        /// Every scenario selected before sharding, in suite order.
        public var suite: [String]
        /// Lines for stderr (`--last-failed` with nothing to go on, the seed).
        public var notes: [String]
    }

    /// The plan for `selected` (the filtered suite, in suite order); a
    /// one-line error for an unusable timings or previous-results file.
    public func plan(_ selected: [Scenario]) throws -> Plan {
        var scenarios = selected
        var notes: [String] = []
        var previousFailures: Set<String> = []
        if lastFailed || order == .failedFirst {
            let option = lastFailed ? "--last-failed" : "--failed-first"
            if let failed = try PreviousRun.failures(at: previousRunPath) {
                previousFailures = failed
                if lastFailed && failed.isDisjoint(with: selected.map(\.name)) {
                    notes.append("\(option): no scenario failed in the previous run (\(previousRunPath)); running all \(selected.count) selected")
                }
            } else {
                notes.append("\(option): no previous run in \(previousRunPath); running all \(selected.count) selected")
            }
        }
        if lastFailed, !previousFailures.isDisjoint(with: selected.map(\.name)) {
            scenarios = selected.filter { previousFailures.contains($0.name) }
        }
        let suite = scenarios.map(\.name)
        if let shard, shard.total > 1 {
            let timings = try ScenarioTimings.load(timingsPath)
            let mine = Set(ShardPlanner.select(suite, timings: timings, shard: shard))
            scenarios = scenarios.filter { mine.contains($0.name) }
        }
        switch order {
        case .suite: break
        case .failedFirst: scenarios = RunOrder.failedFirst(scenarios, failed: previousFailures)
        case .shuffled(let seed):
            scenarios = RunOrder.shuffled(scenarios, seed: seed)
            notes.append("shuffled with --seed \(seed)")
        }
        return Plan(scenarios: scenarios, suite: suite, notes: notes)
    }
}
