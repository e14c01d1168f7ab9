import Foundation

/// Median and spread of one set of samples.
public struct BenchSummary: Codable, Sendable, Equatable {
    /// Number of samples.
    public var count: Int
    /// The median (linear interpolation between the two middle samples).
    public var median: Double
    /// 10th percentile (linear interpolation).
    public var p10: Double
    /// 90th percentile (linear interpolation).
    public var p90: Double

    /// Summarises `samples`; nil when there are none.
    public init?(samples: [Double]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        count = sorted.count
        median = BenchSummary.percentile(sorted, 0.5)
        p10 = BenchSummary.percentile(sorted, 0.1)
        p90 = BenchSummary.percentile(sorted, 0.9)
    }

    /// The `q` quantile (0...1) of ascending `sorted`, interpolating linearly
    /// between the closest ranks (the method of numpy's default and R's type 7).
    public static func percentile(_ sorted: [Double], _ q: Double) -> Double {
        precondition(!sorted.isEmpty, "percentile of no samples")
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let fraction = position - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
    }
}

/// A configuration's cost against the baseline measured in the same run.
public struct BenchRatio: Codable, Sendable, Equatable {
    /// median / baseline median.
    public var median: Double
    /// p10 / baseline median.
    public var p10: Double
    /// p90 / baseline median.
    public var p90: Double

    /// The ratio of `summary` to `baseline`; nil when the baseline's median
    /// is not positive (a ratio would mean nothing).
    public init?(_ summary: BenchSummary, over baseline: BenchSummary) {
        guard baseline.median > 0 else { return nil }
        median = summary.median / baseline.median
        p10 = summary.p10 / baseline.median
        p90 = summary.p90 / baseline.median
    }
}
