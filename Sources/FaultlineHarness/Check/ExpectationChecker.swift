import Faultline
import Foundation

/// Compares what a run produced with what its scenario expects, and says
/// for every failed check what was expected and what was found.
public struct ExpectationChecker: Sendable {
    /// Resolves frames when a check needs function names.
    public var symbolicator: Symbolicator

    /// Creates a checker.
    public init(symbolicator: Symbolicator = Symbolicator()) {
        self.symbolicator = symbolicator
    }

    /// Every failed check; empty when the run meets `expectation`.
    public func check(_ expectation: ScenarioExpectation, against observation: Observation) -> [CheckFailure] {
        var failures: [CheckFailure] = []
        if case .timedOut(let seconds) = observation.exit {
            failures.append(CheckFailure("timeout", expected: "the victim to end within \(Units.describe(seconds: seconds))",
                                         found: "\(observation.exit.description); its process group was killed"))
        } else if case .notStarted = observation.exit {
            return failures
        } else if let exit = expectation.exit, !Self.exitMatches(exit, observation.exit) {
            failures.append(CheckFailure("exit", expected: exit.description, found: observation.exit.description))
        }
        failures += checkReports(expectation.reports, observation.reports, victimPid: observation.pid)
        failures += checkContains("stderr_contains", expectation.stderrContains, observation.stderr)
        failures += checkContains("stdout_contains", expectation.stdoutContains, observation.stdout)
        failures += checkLacks("stderr_lacks", expectation.stderrLacks, observation.stderr)
        return failures
    }

    static func exitMatches(_ expected: ExitExpectation, _ found: VictimExit) -> Bool {
        switch (expected, found) {
        case (.code(let a), .exited(let b)): return a == b
        case (.signal(let a), .signaled(let b)): return a == b
        default: return false
        }
    }

    private func checkContains(_ check: String, _ needles: [String], _ haystack: String) -> [CheckFailure] {
        needles.filter { !haystack.contains($0) }.map { needle in
            let lines = haystack.split(separator: "\n", omittingEmptySubsequences: true)
            let found = lines.isEmpty
                ? "nothing (the stream was empty)"
                : "\(lines.count) lines without it, ending \"\(abbreviate(lines.suffix(2).joined(separator: "\n"), limit: 120))\""
            return CheckFailure(check, expected: "\"\(needle)\"", found: found)
        }
    }

    /// A failure per text found, quoting the first line that holds it.
    private func checkLacks(_ check: String, _ needles: [String], _ haystack: String) -> [CheckFailure] {
        needles.compactMap { needle in
            guard haystack.contains(needle) else { return nil }
            let line = haystack.split(separator: "\n").first { $0.contains(needle) }.map(String.init) ?? needle
            return CheckFailure(check, expected: "no \"\(needle)\"", found: "\"\(abbreviate(line, limit: 120))\"")
        }
    }

    // MARK: reports

    /// A report ready to be judged: the (maybe symbolicated) model and its JSON.
    struct Candidate {
        var path: String
        var report: Report
        var json: JSONValue
    }

    private func checkReports(_ expected: [ReportExpectation]?, _ entries: [ReportStore.Entry], victimPid: Int32?) -> [CheckFailure] {
        var failures: [CheckFailure] = []
        var candidates: [Candidate] = []
        let symbolize = expected?.contains(where: \.needsSymbols) ?? false
        for entry in entries {
            switch entry.result {
            case .failure(let error):
                failures.append(CheckFailure("report file", expected: "a valid report", found: error.description))
            case .success(let report):
                let r = symbolize ? symbolicator.symbolicate(report) : report
                candidates.append(Candidate(path: entry.path, report: r, json: Self.json(of: r)))
            }
        }
        guard let expected else { return failures }

        let results = expected.map { e in candidates.map { c in ReportCheck.failures(e, c, symbolizer: symbolicator.symbolizerPath, victimPid: victimPid) } }
        let pairs = BipartiteMatching.match(left: expected.count, right: candidates.count) { i, j in results[i][j].isEmpty }
        let usedReports = Set(pairs.compactMap { $0 })
        let unmatchedExpectations = expected.indices.filter { pairs[$0] == nil }
        let leftover = candidates.indices.filter { !usedReports.contains($0) }

        if expected.count != candidates.count {
            let listing = candidates.isEmpty ? "none" : "\(candidates.count): " + candidates.map { Self.summary($0) }.joined(separator: "; ")
            failures.append(CheckFailure("reports", expected: "\(expected.count)", found: listing))
        }
        // For each expectation left without a report, explain against the
        // closest remaining report (fewest failed checks).
        for i in unmatchedExpectations {
            let label = expected.count > 1 ? "report \(i + 1) (\(expected[i].source)) " : ""
            // With no report left, compare against the closest report that
            // another expectation took, saying so.
            let pool = leftover.isEmpty ? Array(candidates.indices) : leftover
            guard let best = pool.min(by: { results[i][$0].count < results[i][$1].count }) else { continue }
            let taken = leftover.isEmpty ? " (in the report already matched to another expectation)" : ""
            for f in results[i][best] {
                failures.append(CheckFailure(label + f.check, expected: f.expected, found: f.found + taken))
            }
        }
        return failures
    }

    /// `crash SIGSEGV (crash-….json)`.
    static func summary(_ c: Candidate) -> String {
        var parts = [c.report.kind]
        if let s = c.report.signal { parts.append(s.name) }
        parts.append("(\((c.path as NSString).lastPathComponent))")
        return parts.joined(separator: " ")
    }

    /// The report as JSON, exactly as the plain encoder writes it (snake_case keys).
    static func json(of report: Report) -> JSONValue {
        guard let data = try? JSONEncoderFactory.plain().encode(report),
              let value = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { return .null }
        return value
    }
}
