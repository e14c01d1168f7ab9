/// What a report says in exception terms, shared by the Sentry and OTLP
/// exporters: a type, a one-line message, the stack it is about.
struct ExceptionFacts {
    /// `SIGSEGV` for a crash, the C++ type for an uncaught exception, else the kind.
    var type: String
    /// One line: `ReportSummary.oneLine`, or the exception's `what()`.
    var message: String
    /// The stack the report is about, innermost first.
    var frames: [Report.Frame]
    /// Where `frames` came from (`crashed_thread`, `throw_stack`, …).
    var stackName: String?

    /// The facts of one export item: a leak group's are `leak`, the
    /// group's title (`48 bytes in 1 block(s) definitely lost`) and its
    /// allocation stack; a whole report's as `init(_ report:)`.
    init(_ item: ExportItem) {
        guard let i = item.leakGroup, let g = item.groupValue else {
            self = ExceptionFacts(item.report)
            return
        }
        type = "leak"
        message = LeakSummary.groupTitle(g)
        frames = SectionFrames.stack(g["allocation_stack"]) ?? []
        stackName = "groups[\(i)].allocation_stack"
    }

    init(_ report: Report) {
        var type = report.kind
        var message = ReportSummary.oneLine(report)
        if report.kind == "crash", let s = report.signal { type = s.name }
        if report.kind == "cxx_exception", case .object(let e)? = report.sections["exception"] {
            if case .string(let t)? = e["type"] { type = t }
            if case .string(let m)? = e["message"] { message = m } else if case .string(let v)? = e["value"] { message = v }
        }
        self.type = type
        self.message = message.isEmpty ? report.kind : message
        let builder = SignatureBuilder()
        let stacks = builder.candidateStacks(of: report)
        let named = report.signature?.stack.flatMap { want in stacks.first { $0.0 == want } }
        if let (name, frames) = named ?? stacks.first {
            self.frames = frames
            self.stackName = name
        } else {
            self.frames = []
            self.stackName = nil
        }
    }
}
