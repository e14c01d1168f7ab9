/// The console table of a run: one block per metric, one row per
/// configuration with median, p10, p90, sample count, ratio to the
/// baseline and the note (why a configuration failed or is unavailable).
public enum BenchConsole {
    /// The tables as text.
    public static func render(_ metrics: [BenchMetric]) -> String {
        var out = ""
        var group = ""
        for m in metrics {
            if m.group != group {
                group = m.group
                out += "\n== \(group)\n"
            }
            out += "\n\(m.title)" + (m.unit.isEmpty ? "" : " [\(m.unit)]") + (m.baseline.map { ", ratios against \($0)" } ?? "") + "\n"
            var t = TextTable(header: ["configuration", "median", "p10", "p90", "n", "x base", "note"])
            for e in m.entries {
                if let s = e.summary, e.status == .ok {
                    t.rows.append([e.label, BenchFormat.number(s.median), BenchFormat.number(s.p10), BenchFormat.number(s.p90),
                                   "\(s.count)", BenchFormat.ratio(e.ratio), e.note ?? ""])
                } else {
                    t.rows.append([e.label, "-", "-", "-", "0", "", "\(e.status.rawValue.uppercased()): \(e.note ?? "")"])
                }
            }
            out += t.render()
        }
        return out
    }
}
