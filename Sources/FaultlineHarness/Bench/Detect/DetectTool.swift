import Foundation

/// A column of the detection matrix: Faultline in a mode, or a peer tool.
public struct DetectTool: Sendable, Codable, Equatable {
    /// Stable id (`faultline`, `valgrind`, …), the key of results and costs.
    public var id: String
    /// Column heading.
    public var label: String
    /// nil when the tool can run here, else why not and how to install it.
    public var unavailable: String?
    /// What the tool costs on the peers bench (its CPU ratio to glibc), or why it is not known.
    public var cost: String?

    /// A tool.
    public init(id: String, label: String, unavailable: String? = nil, cost: String? = nil) {
        self.id = id
        self.label = label
        self.unavailable = unavailable
        self.cost = cost
    }

    /// The install command of the peers.
    public static let install = "FAULTLINE_SETUP_BENCH=1 scripts/setup"
    /// Where Debian puts the peers' preload libraries.
    static let efencePaths = ["/usr/lib/libefence.so.0", "/usr/lib/x86_64-linux-gnu/libefence.so.0"]
    static let dumaPaths = ["/usr/lib/libduma.so.0", "/usr/lib/x86_64-linux-gnu/libduma.so.0"]
    static let mallocDebugPaths = ["/lib/x86_64-linux-gnu/libc_malloc_debug.so.0", "/usr/lib/x86_64-linux-gnu/libc_malloc_debug.so.0",
                                   "/lib64/libc_malloc_debug.so.0"]

    /// Every column, in matrix order, each saying whether it can run here.
    /// The peers that read a fault's frame need gdb.
    public static func all(build: BuildDirectory) -> [DetectTool] {
        let gdb = BenchMachineTools.onPath("gdb")
        func needs(_ found: String?, _ what: String) -> String? {
            found == nil ? "not installed: \(what) (\(install))" : gdb == nil ? "gdb not installed (apt-get install gdb) to read the fault's frame" : nil
        }
        let agent = build.product(BuildDirectory.agentLibrary) == nil || build.product(BuildDirectory.mallocShimLibrary) == nil
            ? "the agent or the malloc shim is not built in \(build.path); run scripts/build" : nil
        return [
            DetectTool(id: "faultline", label: "Faultline", unavailable: agent),
            DetectTool(id: "faultline_guard", label: "Faultline --guard all", unavailable: agent),
            DetectTool(id: "valgrind", label: "valgrind memcheck",
                       unavailable: BenchMachineTools.onPath("valgrind") == nil ? "not installed: valgrind (\(install))" : nil),
            DetectTool(id: "asan", label: "ASan/LSan",
                       unavailable: BenchMachineTools.clang() == nil ? "clang not found (the Swift toolchain ships /opt/swift/usr/bin/clang)" : nil),
            DetectTool(id: "efence", label: "Electric Fence", unavailable: needs(BenchMachineTools.firstExisting(efencePaths), "libefence.so.0")),
            DetectTool(id: "duma", label: "DUMA", unavailable: needs(BenchMachineTools.firstExisting(dumaPaths), "libduma.so.0")),
            DetectTool(id: "glibc", label: "glibc MALLOC_CHECK_=3",
                       unavailable: needs(BenchMachineTools.firstExisting(mallocDebugPaths), "glibc's libc_malloc_debug.so.0 (glibc 2.34 or later)")),
        ]
    }
}

/// How one tool did on one case.
public enum DetectOutcome: String, Sendable, Codable, CaseIterable {
    /// It named the bug (a class of the row's family) with the culprit in its stack.
    case rightFrame = "caught_right_frame"
    /// It named the bug, but the culprit is not in the stack it printed.
    case caught
    /// It said nothing.
    case missed
    /// It said something else: a class outside the row's family.
    case falseReport = "false"
    /// It could not run the case (build failed, tool error, timed out).
    case failed = "tool_failed"
    /// The tool is not installed here.
    case unavailable

    /// One letter for the per-case table.
    public var letter: String {
        switch self {
        case .rightFrame: return "R"
        case .caught: return "C"
        case .missed: return "."
        case .falseReport: return "F"
        case .failed: return "X"
        case .unavailable: return "-"
        }
    }
}

/// One cell of the matrix before folding: a case under a tool.
public struct DetectResult: Sendable, Codable, Equatable {
    /// The scenario name.
    public var caseName: String
    /// The tool's id.
    public var tool: String
    /// How it did.
    public var outcome: DetectOutcome
    /// The class the tool named (the verdict chosen), nil when it named none.
    public var className: String?
    /// The chosen verdict's stack (function names, innermost first), at most 12.
    public var frames: [String]
    /// Wall seconds of the run.
    public var seconds: Double
    /// Why it failed, or what else was seen.
    public var note: String?

    /// A result.
    public init(caseName: String, tool: String, outcome: DetectOutcome, className: String? = nil, frames: [String] = [],
                seconds: Double = 0, note: String? = nil) {
        self.caseName = caseName
        self.tool = tool
        self.outcome = outcome
        self.className = className
        self.frames = Array(frames.prefix(12))
        self.seconds = seconds
        self.note = note
    }

    /// Judges what a tool said about `c`: the first verdict of the row's
    /// family whose stack has one of the case's culprits, else the first of the family, else
    /// the first verdict at all (false), else missed.
    public static func judge(_ c: DetectCase, tool: String, verdicts: [DetectVerdict], seconds: Double, note: String? = nil) -> DetectResult {
        let named = verdicts.filter(\.caught)
        let family = named.filter { DetectClasses.accepts(c.bugClass, $0.className!) }
        if let v = family.first(where: { v in c.culprits.contains { v.names(culprit: $0) } }) {
            return DetectResult(caseName: c.scenario.name, tool: tool, outcome: .rightFrame, className: v.className, frames: v.frames, seconds: seconds, note: note)
        }
        if let v = family.first ?? named.first {
            return DetectResult(caseName: c.scenario.name, tool: tool, outcome: family.isEmpty ? .falseReport : .caught,
                                className: v.className, frames: v.frames, seconds: seconds, note: note)
        }
        return DetectResult(caseName: c.scenario.name, tool: tool, outcome: .missed, seconds: seconds, note: note)
    }
}

extension DetectTool {
    /// The peers bench configuration each column's cost is read from
    /// (Faultline's default is the shim with leak tracking and stacks).
    static let costConfig = ["faultline": "leaks", "valgrind": "valgrind", "asan": "asan", "efence": "efence", "duma": "duma", "glibc": "glibc"]

    /// `tools` with their cost from the peers section's CPU metric
    /// (`peers.synthetic_cpu`): the median ratio to glibc, or why there is none.
    public static func withCosts(_ tools: [DetectTool], from metrics: [BenchMetric]) -> [DetectTool] {
        let cpu = metrics.first { $0.name == "peers.synthetic_cpu" }
        return tools.map { t in
            var t = t
            guard let config = costConfig[t.id] else { t.cost = "not measured"; return t }
            guard let e = cpu?.entries.first(where: { $0.config == config }) else { t.cost = "no peers run"; return t }
            t.cost = e.ratio.map { String(format: "%.1fx", $0.median) + (t.id == "glibc" ? " (checks off)" : "") } ?? e.status.rawValue
            return t
        }
    }
}
