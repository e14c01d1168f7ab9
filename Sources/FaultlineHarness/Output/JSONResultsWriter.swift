import Faultline
import Foundation

/// Machine-readable results (`--json FILE`), schema `faultline.run-results`
/// version 1 (docs/runner.md).
public enum JSONResultsWriter {
    struct Document: Encodable {
        var schema = "faultline.run-results"
        var schemaVersion = 1
        var startedAt: String
        var wallSeconds: Double
        var artifactsDirectory: String
        var totals: [String: Int]
        var scenarios: [ScenarioEntry]
    }

    struct ScenarioEntry: Encodable {
        var name: String
        var file: String
        var line: Int
        var verdict: Verdict
        var reason: String?
        var passed: Int
        var ran: Int
        var durationSeconds: Double
        var runs: [RunRecord]
    }

    /// The JSON bytes.
    public static func render(_ result: SuiteResult) throws -> Data {
        var totals: [String: Int] = ["scenarios": result.scenarios.count]
        for v in [Verdict.pass, .fail, .skip, .flaky] { totals[v.rawValue.lowercased()] = result.count(v) }
        let doc = Document(
            startedAt: result.startedAt, wallSeconds: result.wallSeconds, artifactsDirectory: result.artifactsDirectory,
            totals: totals,
            scenarios: result.scenarios.map { s in
                ScenarioEntry(
                    name: s.scenario.name, file: s.scenario.source.file, line: s.scenario.source.line, verdict: s.verdict,
                    reason: s.reason, passed: s.passRate.passed, ran: s.passRate.total, durationSeconds: s.durationSeconds,
                    runs: s.runs)
            })
        return try JSONEncoderFactory.pretty().encode(doc)
    }
}
