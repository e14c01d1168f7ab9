import Foundation

/// What changed between two results files (`faultline bench --compare`).
///
/// A figure regressed when its new median is more than `threshold` (default
/// 25 %) above the old median AND its new p10 is above the old p90: the
/// move must exceed the threshold and the two runs' spreads must not
/// overlap, so a noisy figure does not cry wolf. Only figures with at least
/// `minimumSamples` (3) samples in both runs are compared (a single peer run
/// has no spread); a metric whose title changed (other sizes) is not
/// compared. Where a metric has a baseline measured in the same run, the
/// ratio to it is compared (it cancels the machine's speed and load);
/// otherwise the absolute figure. Every figure is a cost: higher is worse.
/// An improvement is the mirror image. A configuration that was measured
/// before and now fails or times out is a regression.
///
/// The default comes from back-to-back full runs of the same build on the
/// 2-core development machine, shared with other work: at 10 % with "above
/// the old p90" one pair flagged 18 figures; at 25 % with non-overlapping
/// spreads the same pair flagged none and a second pair (load falling from
/// 2 to 0.6 during the run) two. A regression is a reason to re-run, not
/// proof.
public struct BenchComparison: Sendable {
    /// The default relative threshold (25 %).
    public static let defaultThreshold = 0.25
    /// Fewest samples a figure needs in both runs to be compared.
    public static let minimumSamples = 3

    /// One changed figure.
    public struct Change: Sendable, Equatable {
        /// Regressed, improved, or not compared (and why, in `text`).
        public enum Kind: String, Sendable { case regressed, improved, notCompared = "not_compared" }
        /// Which.
        public var kind: Kind
        /// Metric name.
        public var metric: String
        /// Configuration id.
        public var config: String
        /// "ratio" (against the baseline) or the unit of the absolute figure.
        public var basis: String
        /// Old median (nil when the configuration now fails).
        public var old: Double?
        /// New median (nil when it now fails).
        public var new: Double?
        /// What happened, one line.
        public var text: String
    }

    /// The changes from `old` to `new`, regressions first.
    public static func compare(old: BenchReport, new: BenchReport, threshold: Double = defaultThreshold) -> [Change] {
        var changes: [Change] = []
        for m in new.metrics {
            guard let om = old.metrics.first(where: { $0.name == m.name }) else { continue }
            if om.title != m.title {
                changes.append(Change(kind: .notCompared, metric: m.name, config: "", basis: m.unit, old: nil, new: nil,
                                      text: "\(m.name): measured differently (\(om.title) | \(m.title))"))
                continue
            }
            for e in m.entries {
                guard let oe = om.entries.first(where: { $0.config == e.config }) else { continue }
                if oe.status == .ok && (e.status == .failed || e.status == .timedOut) {
                    changes.append(Change(kind: .regressed, metric: m.name, config: e.config, basis: m.unit, old: oe.summary?.median, new: nil,
                                          text: "\(m.name) [\(e.config)]: measured before, now \(e.status.rawValue): \(e.note ?? "")"))
                    continue
                }
                let useRatio = m.baseline != nil && e.config != m.baseline && e.ratio != nil && oe.ratio != nil
                let now: (median: Double, p10: Double, p90: Double)
                let was: (median: Double, p10: Double, p90: Double)
                if useRatio, let r = e.ratio, let o = oe.ratio {
                    now = (r.median, r.p10, r.p90)
                    was = (o.median, o.p10, o.p90)
                } else if let s = e.summary, let o = oe.summary {
                    now = (s.median, s.p10, s.p90)
                    was = (o.median, o.p10, o.p90)
                } else { continue }
                if (e.summary?.count ?? 0) < minimumSamples || (oe.summary?.count ?? 0) < minimumSamples {
                    changes.append(Change(kind: .notCompared, metric: m.name, config: e.config, basis: m.unit, old: nil, new: nil,
                                          text: "\(m.name) [\(e.config)]: fewer than \(minimumSamples) samples"))
                    continue
                }
                let basis = useRatio ? "ratio" : m.unit
                let pct = was.median != 0 ? (now.median / was.median - 1) * 100 : 0
                let shown = { (v: Double) in useRatio ? BenchFormat.number(v) + "x" : BenchFormat.number(v) + " " + m.unit }
                if now.median > was.median * (1 + threshold) && now.p10 > was.p90 {
                    changes.append(Change(kind: .regressed, metric: m.name, config: e.config, basis: basis, old: was.median, new: now.median,
                                          text: "\(m.name) [\(e.config)]: \(shown(was.median)) -> \(shown(now.median)) (+\(String(format: "%.0f", pct)) %; new p10 \(shown(now.p10)) > old p90 \(shown(was.p90)))"))
                } else if now.median < was.median * (1 - threshold) && now.p90 < was.p10 {
                    changes.append(Change(kind: .improved, metric: m.name, config: e.config, basis: basis, old: was.median, new: now.median,
                                          text: "\(m.name) [\(e.config)]: \(shown(was.median)) -> \(shown(now.median)) (\(String(format: "%.0f", pct)) %; new p90 \(shown(now.p90)) < old p10 \(shown(was.p10)))"))
                }
            }
        }
        return changes.filter { $0.kind == .regressed } + changes.filter { $0.kind == .improved } + changes.filter { $0.kind == .notCompared }
    }
}

/// Number formatting shared by the console, the HTML and the comparison.
public enum BenchFormat {
    /// About three significant digits, never scientific notation.
    public static func number(_ v: Double) -> String {
        let a = abs(v)
        if a >= 100 { return String(format: "%.0f", v) }
        if a >= 10 { return String(format: "%.1f", v) }
        if a >= 1 { return String(format: "%.2f", v) }
        if a >= 0.01 { return String(format: "%.3f", v) }
        if a == 0 { return "0" }
        return String(format: "%.5f", v)
    }

    /// "1.23x" or "".
    public static func ratio(_ r: BenchRatio?) -> String { r.map { number($0.median) + "x" } ?? "" }
}
