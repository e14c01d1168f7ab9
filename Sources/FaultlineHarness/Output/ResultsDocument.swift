import Faultline
import Foundation

/// The results of one `faultline run` (or of merged shards) as written to
/// `--json`: schema `faultline.run-results` version 2 (docs/runner.md). The
/// console table and JUnit are rendered from it too, so a merge of shard
/// files prints and writes exactly what one run would have.
public struct ResultsDocument: Codable, Sendable {
    /// Always `faultline.run-results`.
    public var schema = ResultsDocument.schemaName
    /// 2: adds `suite`, `shard`, `seed`, `rerun_index`, `xfail` and the XFAIL, XPASS and NOT RUN verdicts.
    public var schemaVersion = ResultsDocument.currentVersion
    /// When the run started (ISO-8601); the earliest shard's for a merge.
    public var startedAt: String
    /// Wall time of the run, seconds; for a merge from the first start to the last end.
    public var wallSeconds: Double
    /// The run's artifacts folder (the first shard's for a merge).
    public var artifactsDirectory: String
    /// Every scenario selected before sharding, in suite order.
    public var suite: [String]
    /// The shard this file holds, nil when the run was not sharded (or for a merge).
    public var shard: Shard?
    /// The `--shuffle` seed.
    public var seed: UInt64?
    /// Where a merged document came from, one entry per shard file.
    public var mergedFrom: [MergedFile]?
    /// Scenario count and count per verdict (lower case, `not_run`).
    public var totals: [String: Int]
    /// The scenarios that ran (or were not run), in run-list order.
    public var scenarios: [Entry]

    /// The schema name.
    public static let schemaName = "faultline.run-results"
    /// The schema version this faultline writes.
    public static let currentVersion = 2

    /// One scenario's result.
    public struct Entry: Codable, Sendable {
        /// Scenario name.
        public var name: String
        /// Scenario file and line.
        public var file: String
        /// 1-based line of its `name:`.
        public var line: Int
        /// The scenario verdict.
        public var verdict: Verdict
        /// The first failure or skip reason.
        public var reason: String?
        /// The scenario's `xfail:` reason.
        public var xfail: String?
        /// Runs that passed.
        public var passed: Int
        /// Runs that ran (skips excluded).
        public var ran: Int
        /// Sum of the runs' times.
        public var durationSeconds: Double
        /// Every run, reruns after the run they repeat.
        public var runs: [RunRecord]
    }

    /// A shard file a merged document was made from.
    public struct MergedFile: Codable, Sendable {
        /// The file as named on the command line.
        public var file: String
        /// Its shard, nil when it was not sharded.
        public var shard: Shard?
        /// Its artifacts folder.
        public var artifactsDirectory: String
    }

    /// The document of `result`.
    public init(_ result: SuiteResult) {
        startedAt = result.startedAt
        wallSeconds = result.wallSeconds
        artifactsDirectory = result.artifactsDirectory
        suite = result.suite ?? result.scenarios.map(\.scenario.name)
        shard = result.shard
        seed = result.seed
        scenarios = result.scenarios.map { s in
            Entry(name: s.scenario.name, file: s.scenario.source.file, line: s.scenario.source.line, verdict: s.verdict,
                  reason: s.reason, xfail: s.scenario.xfail, passed: s.passRate.passed, ran: s.passRate.total,
                  durationSeconds: s.durationSeconds, runs: s.runs)
        }
        totals = Self.totals(scenarios)
    }

    /// Creates a document from its parts (a merge).
    init(startedAt: String, wallSeconds: Double, artifactsDirectory: String, suite: [String], mergedFrom: [MergedFile], scenarios: [Entry]) {
        self.startedAt = startedAt
        self.wallSeconds = wallSeconds
        self.artifactsDirectory = artifactsDirectory
        self.suite = suite
        self.mergedFrom = mergedFrom
        self.scenarios = scenarios
        totals = Self.totals(scenarios)
    }

    /// The verdicts counted in `totals`, in the order the console lists them.
    static let countedVerdicts: [Verdict] = [.pass, .fail, .skip, .flaky, .xfail, .xpass, .notRun]

    static func totals(_ entries: [Entry]) -> [String: Int] {
        var totals = ["scenarios": entries.count]
        for v in countedVerdicts { totals[key(v)] = entries.filter { $0.verdict == v }.count }
        return totals
    }

    /// `pass`, `not_run`: a verdict's key in `totals`.
    static func key(_ v: Verdict) -> String { v.rawValue.lowercased().replacingOccurrences(of: " ", with: "_") }

    /// How many scenarios got `verdict`.
    public func count(_ verdict: Verdict) -> Int { scenarios.filter { $0.verdict == verdict }.count }

    /// True when some scenario failed (or was flaky, unless `flakyOK`).
    public func hasFailures(flakyOK: Bool) -> Bool { scenarios.contains { $0.verdict.isFailure(flakyOK: flakyOK) } }

    /// True when some scenario ran more than once by `--repeat`.
    var repeated: Bool { scenarios.contains { $0.runs.contains { $0.repeatIndex != nil } } }

    /// The JSON bytes (pretty, snake_case keys).
    public func encoded() throws -> Data { try JSONEncoderFactory.pretty().encode(self) }

    /// Decodes results JSON; a one-line error naming `file` when it is not
    /// results this faultline can merge.
    public static func decode(_ data: Data, file: String) throws(ResultsFileError) -> ResultsDocument {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        struct Header: Decodable { var schema: String?; var schemaVersion: Int? }
        guard let header = try? decoder.decode(Header.self, from: data) else {
            throw ResultsFileError("\(file): not JSON; pass files written by faultline run --json")
        }
        guard header.schema == schemaName else {
            throw ResultsFileError("\(file): not faultline run results (schema \(header.schema.map { "'\($0)'" } ?? "missing")); pass files written by faultline run --json")
        }
        guard header.schemaVersion == currentVersion else {
            throw ResultsFileError("\(file): results schema version \(header.schemaVersion.map(String.init) ?? "missing"), this faultline merges version \(currentVersion); rerun the shards with this faultline")
        }
        do {
            return try decoder.decode(ResultsDocument.self, from: data)
        } catch {
            throw ResultsFileError("\(file): malformed results (\(Self.describe(error))); pass the file faultline run --json wrote, unchanged")
        }
    }

    private static func describe(_ error: Error) -> String {
        guard let e = error as? DecodingError else { return "\(error)" }
        func path(_ c: DecodingError.Context) -> String {
            c.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch e {
        case .keyNotFound(let key, let c): return "no \(key.stringValue) at \(path(c).isEmpty ? "the top" : path(c))"
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c): return "\(c.debugDescription) at \(path(c))"
        @unknown default: return "\(e)"
        }
    }
}

/// Results that cannot be read or merged, in one line naming the file or scenario.
public struct ResultsFileError: Error, CustomStringConvertible {
    /// The line.
    public var description: String

    init(_ description: String) { self.description = description }
}
