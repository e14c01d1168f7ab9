/// The order scenarios start in: suite order, or previous failures first
/// (`--failed-first`), or shuffled with a seed (`--shuffle`).
public enum RunOrder {
    /// `scenarios` with those named in `failed` first, each part in suite order.
    public static func failedFirst(_ scenarios: [Scenario], failed: Set<String>) -> [Scenario] {
        scenarios.filter { failed.contains($0.name) } + scenarios.filter { !failed.contains($0.name) }
    }

    /// `scenarios` in an order that depends only on them and `seed`
    /// (Fisher–Yates driven by SplitMix64, so the same seed gives the same
    /// order on every machine and Swift version).
    public static func shuffled(_ scenarios: [Scenario], seed: UInt64) -> [Scenario] {
        var generator = SplitMix64(state: seed)
        var out = scenarios
        var i = out.count - 1
        while i > 0 {
            let j = Int(generator.next() % UInt64(i + 1))
            out.swapAt(i, j)
            i -= 1
        }
        return out
    }
}

/// SplitMix64 (Steele, Lea and Flood): a tiny seeded generator whose output
/// is fixed by the algorithm, unlike the standard library's.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
