import Foundation

/// The final console output of `faultline run`: the table, then each
/// failure with expected beside found, then totals.
public enum ConsoleSummary {
    /// The whole text.
    public static func render(_ result: SuiteResult, repeatCount: Int = 1) -> String {
        var table = TextTable(header: repeatCount > 1 ? ["scenario", "verdict", "passed", "time", "why"] : ["scenario", "verdict", "time", "why"])
        for s in result.scenarios {
            var row = [s.scenario.name, s.verdict.rawValue]
            if repeatCount > 1 { row.append("\(s.passRate.passed)/\(s.passRate.total)") }
            row += [Units.elapsed(s.durationSeconds), s.reason.map { abbreviate($0, limit: 100) } ?? ""]
            table.rows.append(row)
        }
        var out = table.render()

        let failing = result.scenarios.filter { $0.verdict.isFailure }
        for s in failing {
            out += "\n\(s.verdict.rawValue) \(s.scenario.name) (\(s.scenario.source))\n"
            for run in s.runs where run.verdict == .fail {
                // Repeats get a "run #N" heading and their checks one level deeper.
                var indent = "  "
                if let r = run.repeatIndex {
                    out += "  run #\(r): \(run.exit ?? "not started")\n"
                    indent = "    "
                }
                for f in run.failures { out += indent + f.description + "\n" }
                if let a = run.artifacts { out += indent + "artifacts: \(a)\n" }
            }
        }
        let skipped = result.scenarios.filter { $0.verdict == .skip }
        if !skipped.isEmpty {
            out += "\nskipped:\n"
            for s in skipped { out += "  \(s.scenario.name): \(s.reason ?? "")\n" }
        }
        out += "\n\(result.scenarios.count) scenarios: \(result.count(.pass)) passed, \(result.count(.fail)) failed, "
            + "\(result.count(.skip)) skipped" + (repeatCount > 1 ? ", \(result.count(.flaky)) flaky" : "")
            + " in \(Units.elapsed(result.wallSeconds))\n"
        return out
    }
}
