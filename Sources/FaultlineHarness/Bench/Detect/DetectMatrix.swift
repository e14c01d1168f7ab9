import Foundation

/// The detection matrix: every case under every tool, and the counts per
/// bug class × tool. Written whole as `faultline bench detect --json`.
public struct DetectMatrix: Sendable, Codable, Equatable {
    /// A case as the matrix lists it: the scenario's own words for it.
    public struct Case: Sendable, Codable, Equatable {
        /// Scenario name.
        public var name: String
        /// The row.
        public var bugClass: String
        /// The class as the scenario states it.
        public var statedClass: String
        /// The functions expected in the stack, innermost first (any one is the right frame).
        public var culprits: [String]
        /// The victim and its arguments.
        public var command: String
        /// The scenario's description.
        public var description: String
    }

    /// Results file version.
    public var version: Int = 1
    /// When the run started (ISO 8601).
    public var startedAt: String
    /// How long it took.
    public var elapsedSeconds: Double
    /// The scenario filters given (empty: every case).
    public var filters: [String]
    /// The columns.
    public var tools: [DetectTool]
    /// The rows' cases, in suite order.
    public var cases: [Case]
    /// One per case and tool.
    public var results: [DetectResult]

    /// A matrix.
    public init(startedAt: String, elapsedSeconds: Double, filters: [String], tools: [DetectTool], cases: [DetectCase], results: [DetectResult]) {
        self.startedAt = startedAt
        self.elapsedSeconds = elapsedSeconds
        self.filters = filters
        self.tools = tools
        self.cases = cases.map {
            Case(name: $0.scenario.name, bugClass: $0.bugClass, statedClass: $0.statedClass, culprits: $0.culprits,
                 command: ([$0.scenario.victim] + $0.scenario.args).joined(separator: " "), description: $0.scenario.description ?? "")
        }
        self.results = results
    }

    /// The rows, in order of first appearance.
    public var classes: [String] {
        var seen: Set<String> = []
        return cases.map(\.bugClass).filter { seen.insert($0).inserted }
    }

    /// The result of `caseName` under `tool`.
    public func result(_ caseName: String, _ tool: String) -> DetectResult? {
        results.first { $0.caseName == caseName && $0.tool == tool }
    }

    /// How many cases of `bugClass` (nil: all) had each outcome under `tool`.
    public func counts(_ bugClass: String?, _ tool: String) -> [DetectOutcome: Int] {
        let names = Set(cases.filter { bugClass == nil || $0.bugClass == bugClass }.map(\.name))
        var out: [DetectOutcome: Int] = [:]
        for r in results where r.tool == tool && names.contains(r.caseName) { out[r.outcome, default: 0] += 1 }
        return out
    }

    /// One cell: `R/N` (caught at the right frame out of N cases), then
    /// `+C` caught elsewhere, `F` false, `X` tool failed; `n/a` when the
    /// tool is not installed.
    public func cell(_ bugClass: String?, _ tool: String) -> String {
        let c = counts(bugClass, tool)
        let n = c.values.reduce(0, +)
        if c[.unavailable] == n && n > 0 { return "n/a" }
        var s = "\(c[.rightFrame] ?? 0)/\(n)"
        if let k = c[.caught], k > 0 { s += " +\(k)" }
        if let k = c[.falseReport], k > 0 { s += " F\(k)" }
        if let k = c[.failed], k > 0 { s += " X\(k)" }
        return s
    }

    /// The JSON file (sorted keys, so two runs diff cleanly).
    public func jsonData() throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        e.keyEncodingStrategy = .convertToSnakeCase
        return try e.encode(self)
    }
}
