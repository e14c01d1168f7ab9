import Foundation

/// Computes `ReportSignature`s from a symbolicated report (the symbolicator
/// calls it; an unsymbolicated report gets image+offset frames).
///
/// The stack a kind is signed by: an uncaught C++ exception's `throw_stack`
/// (where it was thrown; the crashed thread is the terminate handler's);
/// a leak group's `allocation_stack` (a `leak` report has one signature per
/// group, and its own is its largest group's); `leak_growth`'s
/// `allocation_stack`; a memory warning's first `top_stacks` entry; a heap
/// error found at exit or at quarantine release, its block's
/// `allocation_stack` (a `write_after_free`'s `deallocation_stack` first);
/// every other kind's `crashed_thread`. A report with none of these (an OOM kill
/// with no breadcrumb) is signed by its kind and process name.
public struct SignatureBuilder: Sendable {
    /// The skip and prefix rules.
    public var rules: SignatureRules

    /// A builder over `rules`.
    public init(rules: SignatureRules = .standard) {
        self.rules = rules
    }

    /// The report's signature.
    public func signature(of report: Report) -> ReportSignature {
        let head = Self.head(of: report)
        let groups = report.kind == "leak" ? leakGroupSignatures(of: report) : []
        if let best = groups.max(by: { $0.bytes < $1.bytes }) {
            var s = best.signature
            s.leakGroups = groups.map(\.signature)
            return s
        }
        for (name, frames) in candidateStacks(of: report) {
            let (names, symbolicated) = significantFrames(frames, in: report)
            if !names.isEmpty { return ReportSignature(head: head, frames: names, stack: name, symbolicated: symbolicated) }
        }
        return ReportSignature(head: head, frames: [report.process.name ?? "?"], stack: nil, symbolicated: true)
    }

    /// One signature per `groups[]` entry of a leak report, with its bytes.
    public func leakGroupSignatures(of report: Report) -> [(index: Int, bytes: Double, signature: ReportSignature)] {
        guard case .array(let groups)? = report.sections["groups"] else { return [] }
        var out: [(Int, Double, ReportSignature)] = []
        for (i, g) in groups.enumerated() {
            guard case .object(let o) = g, let frames = SectionFrames.stack(o["allocation_stack"]) else { continue }
            let (names, symbolicated) = significantFrames(frames, in: report)
            guard !names.isEmpty else { continue }
            var head = "leak"
            if case .string(let c)? = o["class"] { head += " " + c }
            var bytes = 0.0
            if case .number(let b)? = o["bytes"] { bytes = b }
            out.append((i, bytes, ReportSignature(head: head, frames: names, stack: "groups[\(i)].allocation_stack", symbolicated: symbolicated)))
        }
        return out
    }

    /// The kind part of the text: the kind, a crash's signal, an uncaught
    /// exception's type.
    static func head(of report: Report) -> String {
        var head = report.kind
        if report.kind == "crash", let s = report.signal { head += " " + s.name }
        if report.kind == "cxx_exception", case .object(let e)? = report.sections["exception"], case .string(let t)? = e["type"] {
            head += " " + t
        }
        return head
    }

    /// The stacks to sign by, best first.
    func candidateStacks(of report: Report) -> [(String, [Report.Frame])] {
        var out: [(String, [Report.Frame])] = []
        func section(_ key: String) {
            if let f = SectionFrames.stack(report.sections[key]) { out.append((key, f)) }
        }
        switch report.kind {
        case "cxx_exception": section("throw_stack")
        case "leak_growth": section("allocation_stack")
        case "memory_warning":
            if case .array(let tops)? = report.sections["top_stacks"], case .object(let o)? = tops.first,
               let f = SectionFrames.stack(o["frames"]) { out.append(("top_stacks[0].frames", f)) }
        default: break
        }
        if Self.foundAwayFromTheBug(report) {
            // The finding thread is whoever exited or pushed the block out of
            // the quarantine: every such report would share exit's frames.
            if report.kind == "write_after_free" { section("deallocation_stack") }
            section("allocation_stack")
        }
        if let t = report.crashedThread { out.append(("crashed_thread", t.frames)) }
        return out
    }

    /// Whether a heap error was found by a check that ran away from the
    /// bad access: at exit or as its block left the quarantine.
    static func foundAwayFromTheBug(_ report: Report) -> Bool {
        guard case .object(let o)? = report.sections[report.kind], case .string(let d)? = o["detected"] else { return false }
        return d == "exit_check" || d == "quarantine_release"
    }

    /// The signature's frame names from `frames`: past the first signal
    /// frame (the frames before it are a signal handler's, which re-raised),
    /// skip and prefix rules applied, at most `rules.significantFrames`
    /// significant ones; and whether every name came from a symbol.
    func significantFrames(_ frames: [Report.Frame], in report: Report) -> ([String], Bool) {
        var start = 0
        if let s = frames.firstIndex(where: { $0.signalFrame == true }), s + 1 < frames.count { start = s + 1 }
        var names: [String] = []
        var significant = 0
        var symbolicated = true
        for frame in frames[start...] where frame.signalFrame != true {
            let image = report.image(of: frame).map { ($0.path as NSString).lastPathComponent }
            for function in Self.functions(of: frame) {
                let action = rules.action(function: function, image: image)
                if action == .skip { continue }
                let name: String
                if let function {
                    name = Self.normalized(function)
                } else {
                    symbolicated = false
                    name = Self.unsymbolicatedName(frame, image: image, report: report)
                }
                names.append(name)
                if action == nil { significant += 1 }
                if significant == rules.significantFrames { return (names, symbolicated) }
            }
        }
        // Fewer significant frames than the limit (or only prefix frames):
        // they are all there is to say.
        return (names, symbolicated)
    }

    /// A frame's functions, innermost inlined first; `[nil]` with no symbol.
    static func functions(of frame: Report.Frame) -> [String?] {
        guard let s = frame.symbol else { return [nil] }
        return (s.inlined ?? []).map { $0.function } + [s.function]
    }

    /// `image+0xoffset`, from the image-relative offset (never the address).
    static func unsymbolicatedName(_ frame: Report.Frame, image: String?, report: Report) -> String {
        guard let image else { return "?" }
        let bias = report.image(of: frame)?.loadBias?.value ?? 0
        let offset = frame.offset?.value ?? (frame.pc.value &- bias)
        return "\(image)+0x\(String(offset, radix: 16))"
    }

    /// A function name without what changes between builds of the same
    /// code: a legacy Rust symbol's `::h<16 hex>` hash.
    static func normalized(_ function: String) -> String {
        var name = function
        if let r = name.range(of: #"::h[0-9a-f]{16}$"#, options: .regularExpression) { name.removeSubrange(r) }
        return name
    }
}
