import Foundation

/// The final console output of `faultline run` (and `faultline results
/// merge`): the table, then each failure with expected beside found, then
/// the skipped and not-run scenarios, then totals.
public enum ConsoleSummary {
    /// The whole text of a run.
    public static func render(_ result: SuiteResult, repeatCount: Int = 1) -> String {
        render(ResultsDocument(result), repeatCount: repeatCount)
    }

    /// The whole text of results; a pass-rate column when `repeatCount` > 1
    /// or the results hold repeats.
    public static func render(_ doc: ResultsDocument, repeatCount: Int = 1) -> String {
        let repeated = repeatCount > 1 || doc.repeated
        var table = TextTable(header: repeated ? ["scenario", "verdict", "passed", "time", "why"] : ["scenario", "verdict", "time", "why"])
        for s in doc.scenarios {
            var row = [s.name, s.verdict.rawValue]
            if repeated { row.append("\(s.passed)/\(s.ran)") }
            row += [Units.elapsed(s.durationSeconds), s.reason.map { abbreviate($0, limit: 100) } ?? ""]
            table.rows.append(row)
        }
        var out = table.render()

        for s in doc.scenarios where s.verdict.showsFailures {
            out += "\n\(s.verdict.rawValue) \(s.name) (\(s.file):\(s.line))\n"
            if s.verdict == .xpass, let reason = s.reason { out += "  \(reason)\n" }
            for run in s.runs where run.verdict == .fail {
                // Repeats and reruns get a heading and their checks one level deeper.
                var indent = "  "
                if let r = run.repeatIndex {
                    out += "  run #\(r): \(run.exit ?? "not started")\n"
                    indent = "    "
                } else if s.runs.count > 1 {
                    out += "  \(run.rerunIndex.map { "rerun #\($0)" } ?? "first run"): \(run.exit ?? "not started")\n"
                    indent = "    "
                }
                for f in run.failures { out += indent + f.description + "\n" }
                if let a = run.artifacts { out += indent + "artifacts: \(a)\n" }
            }
        }
        for (verdict, heading) in [(Verdict.skip, "skipped"), (.notRun, "not run")] {
            let listed = doc.scenarios.filter { $0.verdict == verdict }
            if listed.isEmpty { continue }
            out += "\n\(heading):\n"
            for s in listed { out += "  \(s.name): \(s.reason ?? "")\n" }
        }
        var counts = ["\(doc.count(.pass)) passed", "\(doc.count(.fail)) failed", "\(doc.count(.skip)) skipped"]
        if repeated || doc.count(.flaky) > 0 { counts.append("\(doc.count(.flaky)) flaky") }
        for (v, word) in [(Verdict.xfail, "xfailed"), (.xpass, "xpassed"), (.notRun, "not run")] where doc.count(v) > 0 {
            counts.append("\(doc.count(v)) \(word)")
        }
        out += "\n\(doc.scenarios.count) scenarios: " + counts.joined(separator: ", ") + " in \(Units.elapsed(doc.wallSeconds))\n"
        return out
    }
}
