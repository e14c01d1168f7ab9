/// One victim case of the detection matrix: a scenario that states its bug,
/// with the class (the report kind it expects, read through `memory_error.kind`
/// for a crash that is a memory error) and the culprit (the function it
/// expects in the stack).
public struct DetectCase: Sendable {
    /// The scenario, run as is for Faultline's columns.
    public var scenario: Scenario
    /// The matrix row: the stated class folded into its family (`DetectClasses.family`).
    public var bugClass: String
    /// The class exactly as the scenario states it (`write_after_free`, `hang_recovered`).
    public var statedClass: String
    /// The innermost function the scenario expects in the stack (shown).
    public var culprit: String
    /// Every function the scenario expects in the stack (its `frames`, the
    /// victim's own functions from the faulting one out to the case's):
    /// a tool's stack with any of them is at the right frame. Any, not the
    /// first: the first is where Faultline notices (an overflow at free),
    /// while ASan stops at the write itself, a frame further in.
    public var culprits: [String]

    /// The folders (scenario name prefixes) whose victims make the matrix.
    public static let folders = ["memory.", "leaks.", "crash.", "hang."]

    /// The cases among `scenarios`: those in `folders` whose victim is a
    /// program of the package, that need nothing the machine may lack
    /// (`requires`, `memory_limit`), that do not link the agent in (`mode:
    /// linked`: no other tool could run such a victim), and whose expectations name a report
    /// kind and a culprit function.
    public static func select(_ scenarios: [Scenario]) -> [DetectCase] {
        scenarios.compactMap { s in
            guard folders.contains(where: s.name.hasPrefix), s.victim.hasPrefix("victim-"), !s.victim.contains("/"),
                  s.requires.isEmpty, s.memoryLimit == nil, s.mode != .linked else { return nil }
            for e in s.expect.reports ?? [] {
                guard let kind = e.kind, let culprit = culprit(of: e) else { continue }
                let stated = kind == "crash" ? (memoryErrorKind(e) ?? kind) : kind
                return DetectCase(scenario: s, bugClass: DetectClasses.family(stated), statedClass: stated, culprit: culprit,
                                  culprits: e.frames.isEmpty ? [culprit] : e.frames)
            }
            return nil
        }
    }

    /// The first of `frames`; for a leak, whose stack is where the block
    /// was allocated, else the first `symbol.function` text in `match`
    /// (`groups[0].allocation_stack[0]…`).
    static func culprit(of e: ReportExpectation) -> String? {
        if let first = e.frames.first { return first }
        guard e.kind?.hasPrefix("leak") == true else { return nil }
        for m in e.match { if let f = function(m) { return f } }
        return nil
    }

    private static func function(_ m: PathMatch) -> String? {
        if m.path.description.hasSuffix("symbol.function"), case .string(let s) = m.expected { return s }
        return function(in: m.expected)
    }

    private static func function(in value: MatchValue) -> String? {
        switch value {
        case .contains(let items): return items.lazy.compactMap { function(in: $0) }.first
        case .object(let entries): return entries.lazy.compactMap { function($0) }.first
        default: return nil
        }
    }

    private static func memoryErrorKind(_ e: ReportExpectation) -> String? {
        for m in e.match where m.path.description == "memory_error.kind" {
            if case .string(let s) = m.expected { return s }
        }
        return nil
    }
}
