import Foundation

/// One shard of a suite split `total` ways: `index` is 1-based (`--shard 2/3`).
public struct Shard: Sendable, Codable, Equatable, CustomStringConvertible {
    /// 1-based shard number.
    public var index: Int
    /// How many shards the suite is split into.
    public var total: Int

    /// Creates a shard; `1 <= index <= total` is the caller's to check.
    public init(index: Int, total: Int) {
        self.index = index
        self.total = total
    }

    public var description: String { "\(index)/\(total)" }

    /// The most shards a suite may be split into.
    public static let maximumTotal = 10_000

    /// Parses `I/N` (1-based); a one-line reason naming the value when it is not one.
    public static func parse(_ text: String) -> Result<Shard, ShardError> {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else {
            return .failure(ShardError("--shard '\(text)' is not INDEX/TOTAL; write e.g. --shard 2/3 (1-based)"))
        }
        return validated(index: i, total: n, shown: "--shard \(text)", base: 1)
    }

    /// A shard from the variables gtest (`GTEST_TOTAL_SHARDS`, `GTEST_SHARD_INDEX`)
    /// or Bazel (`TEST_TOTAL_SHARDS`, `TEST_SHARD_INDEX`) set, 0-based; nil when
    /// neither pair is set. Bazel's wins; both set and disagreeing is an error.
    public static func fromEnvironment(_ env: [String: String]) -> Result<Shard, ShardError>? {
        let bazel = pair(env, total: "TEST_TOTAL_SHARDS", index: "TEST_SHARD_INDEX")
        let gtest = pair(env, total: "GTEST_TOTAL_SHARDS", index: "GTEST_SHARD_INDEX")
        if case .success(let b)? = bazel, case .success(let g)? = gtest, b != g {
            return .failure(ShardError("TEST_SHARD_INDEX/TEST_TOTAL_SHARDS say shard \(b) but GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS say \(g); unset one pair"))
        }
        return bazel ?? gtest
    }

    private static func pair(_ env: [String: String], total totalName: String, index indexName: String) -> Result<Shard, ShardError>? {
        let total = env[totalName], index = env[indexName]
        if total == nil && index == nil { return nil }
        guard let total, let index else {
            let (set, unset) = total == nil ? (indexName, totalName) : (totalName, indexName)
            return .failure(ShardError("\(set) is set but \(unset) is not; set both (0-based index) or neither"))
        }
        guard let n = Int(total) else {
            return .failure(ShardError("\(totalName)='\(total)' is not a number of shards; set it to e.g. 3"))
        }
        guard let i = Int(index) else {
            return .failure(ShardError("\(indexName)='\(index)' is not a shard index; set it to 0…\(max(0, n - 1)) (0-based)"))
        }
        return validated(index: i + 1, total: n, shown: "\(indexName)=\(index) of \(totalName)=\(total)", base: 0)
    }

    private static func validated(index: Int, total: Int, shown: String, base: Int) -> Result<Shard, ShardError> {
        guard total >= 1, total <= maximumTotal else {
            return .failure(ShardError("\(shown): the number of shards must be 1…\(maximumTotal), got \(total)"))
        }
        guard index >= 1, index <= total else {
            return .failure(ShardError("\(shown): the shard index must be \(base)…\(total - 1 + base) (\(base == 1 ? "1" : "0")-based), got \(index - 1 + base)"))
        }
        return .success(Shard(index: index, total: total))
    }
}

/// A bad shard option or variable, in one line naming the value.
public struct ShardError: Error, CustomStringConvertible {
    /// The line.
    public var description: String

    init(_ description: String) { self.description = description }
}
