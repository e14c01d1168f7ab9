/// Splits scenarios into shards balanced by their recorded durations.
///
/// Greedy longest-first (LPT), as pytest-split's least-duration mode: the
/// scenarios sorted by duration (longest first, ties by name) each go to the
/// shard with the least total so far (ties to the lower shard). A scenario
/// without a recorded time counts as the mean of the recorded ones (1 s when
/// none is), so with no timings at all the split is round-robin in name
/// order. Each shard's total then differs from any other's by at most the
/// longest scenario: the last scenario given to the fullest shard went to
/// what was then the emptiest one. The result depends only on the names and
/// the timings, so every machine of a CI matrix computes the same split.
public enum ShardPlanner {
    /// Scenario names per shard (index 0 is shard 1), each in the order of `names`.
    public static func plan(_ names: [String], timings: ScenarioTimings, shards: Int) -> [[String]] {
        let known = names.compactMap { timings.durations[$0] }
        let fallback = known.isEmpty ? 1 : known.reduce(0, +) / Double(known.count)
        let cost = Dictionary(names.map { ($0, timings.durations[$0] ?? fallback) }, uniquingKeysWith: { a, _ in a })
        let longestFirst = names.sorted { (cost[$0]!, $1) > (cost[$1]!, $0) }
        var totals = [Double](repeating: 0, count: shards)
        var shardOf: [String: Int] = [:]
        for name in longestFirst {
            let target = totals.indices.min { (totals[$0], $0) < (totals[$1], $1) }!
            totals[target] += cost[name]!
            shardOf[name] = target
        }
        var result = [[String]](repeating: [], count: shards)
        for name in names { result[shardOf[name]!].append(name) }
        return result
    }

    /// The names `shard` runs, in the order of `names`.
    public static func select(_ names: [String], timings: ScenarioTimings, shard: Shard) -> [String] {
        plan(names, timings: timings, shards: shard.total)[shard.index - 1]
    }
}
