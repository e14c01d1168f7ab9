import Foundation

/// Turns a report into text for a person, in the spirit of the Swift
/// runtime's backtracer but tighter: a header line, who waits for whom (a
/// deadlock or hang), the uncaught C++ exception or the memory-limit event,
/// the signal, the malloc
/// shim's verdict, the Swift
/// fatal error and stderr tail, recrash details, the crashed thread, every
/// other thread (a stack the report holds twice, once: `RepeatedStacks`),
/// an exception's throw stacks (`ExceptionText`), a heap block's free and
/// allocation stacks (`HeapErrorText`), the heaviest allocation stacks of a
/// memory warning or OOM kill (`TopStacksText`), a leak report's groups
/// with their stacks (`LeakReportText`), detector sections (any section,
/// generically), registers and images.
public struct ReportFormatter: Sendable {
    /// What to show and how.
    public struct Options: Sendable {
        /// Most lines of the captured stderr tail shown.
        public var stderrLines = 20
        /// A run of at least this many frames of one function is collapsed.
        public var collapseRunsOf = 8
        /// Frames of a collapsed run shown before the count.
        public var runHead = 3
        /// Show the crashed thread's registers.
        public var registers = true
        /// Show the image list.
        public var images = true
        /// Source paths under this directory are shown relative to it
        /// (default: the current directory).
        public var baseDirectory: String? = FileManager.default.currentDirectoryPath

        /// The defaults.
        public init() {}
    }

    /// The options in force.
    public var options: Options

    /// A formatter with `options`.
    public init(options: Options = Options()) { self.options = options }

    /// A symbolicated report with the symbolicator's warnings.
    public func format(_ result: Symbolicator.Result) -> String {
        format(result.report, warnings: result.warnings)
    }

    /// The text for `report`; `warnings` mark frames left unsymbolicated.
    public func format(_ report: Report, warnings: [SymbolicationWarning] = []) -> String {
        let images = report.images ?? []
        let stacks = StackFormatter(
            images: images, warnings: warnings, addressDigits: addressDigits(report),
            runHead: options.runHead, runMinimum: max(options.collapseRunsOf, options.runHead + 1),
            baseDirectory: options.baseDirectory)
        let tree = JSONTreeFormatter(stacks: stacks)
        var out: [String] = [header(report)] + WaitHeadline.lines(report) + ExceptionHeadline.lines(report)
            + MemoryLimitHeadline.lines(report) + LeakReportText.headline(report) + ResourceReportText.headline(report)
        if let s = report.signal { out.append("signal: " + describe(s)) }
        out += MemoryErrorHeadline.lines(report)
        if let m = report.swiftFatalError?.trimmingCharacters(in: .whitespacesAndNewlines), !m.isEmpty {
            out.append("Swift fatal error: " + m)
        }
        out += SignatureLines.lines(report)
        if let r = report.recrash { out += recrash(r, stacks: stacks) }
        out += HandlerStallHeadline.lines(report)
        for w in warnings { out.append("warning: \(w)") }
        if let tail = report.stderrTail { out += stderrTail(tail) }

        if let t = report.crashedThread {
            out.append("")
            var title = threadTitle(t, crashed: report.signal != nil || report.kind == "crash" || report.kind == "cxx_exception")
            // `second free by thread 7:` rather than `reported thread 7:`.
            if let verb = HeapErrorText.threadVerb(report), title.hasPrefix("reported thread ") {
                title = "\(verb) by thread " + title.dropFirst("reported thread ".count)
            }
            out.append(title)
            out += threadBody(t, stacks: stacks)
        }
        let threads = report.threads ?? []
        for t in threads where t.agent != true && !RepeatedStacks.repeatsReportedThread(t, in: report) {
            out.append("")
            out.append(threadTitle(t, crashed: nil))
            out += threadBody(t, stacks: stacks)
        }
        // Faultline's own threads have no stacks: one line for all of them.
        let own = threads.filter { $0.agent == true }.map { t in "\(t.tid)" + (t.name.map { " \"\($0)\"" } ?? "") }
        if !own.isEmpty {
            out.append("")
            out.append("Faultline's own threads (not sampled): " + own.joined(separator: ", "))
        }

        out += ExceptionText.body(report, stacks: stacks)
        out += HeapErrorText.body(report, stacks: stacks)
        out += TopStacksText.body(report, stacks: stacks)
        out += LeakReportText.body(report, stacks: stacks)
        out += ResourceReportText.body(report, stacks: stacks)
        let shown = LeakReportText.handledSections(report)
        let overrides = [ExceptionText.sectionOverrides(report), HeapErrorText.sectionOverrides(report), TopStacksText.sectionOverrides(report),
                         RepeatedStacks.sectionOverrides(report), ResourceReportText.sectionOverrides(report)]
            .reduce(into: [String: JSONValue?]()) { all, one in all.merge(one) { a, _ in a } }
        var sections: [(String, JSONValue)] = report.sections.filter { !shown.contains($0.key) }
            .sorted { $0.key < $1.key }.compactMap { key, value in
                guard let override = overrides[key] else { return (key, value) }
                return override.map { (key, $0) }
            }
        if let user = report.user { sections.append(("user", .object(user))) }
        for (key, value) in sections {
            out.append("")
            out += tree.lines(key: key, value, indent: "")
        }

        if options.registers, let regs = report.crashedThread?.registers, !regs.isEmpty {
            out.append("")
            out.append("registers (thread \(report.crashedThread!.tid)):")
            out += registerLines(regs, stacks: stacks)
        }
        if options.images, !images.isEmpty {
            out.append("")
            out.append("images:")
            out += imageLines(images, warnings: warnings, stacks: stacks)
        }
        var capture: [String] = []
        if let u = Self.unwinders(report) {
            // Why the crash handler took frame pointers (a second,
            // handler_stalled report says so in its own line).
            let why = report.sections["handler_stalled"] == nil ? report.capture?.unwinderReason : nil
            capture.append("unwinder \(u)" + (why.map { " (\($0))" } ?? ""))
        }
        if let ns = report.capture?.durationNs { capture.append(String(format: "report written in %.2f ms", Double(ns) / 1e6)) }
        if !capture.isEmpty { out.append(""); out.append("capture: " + capture.joined(separator: ", ")) }
        // Every line is one line, with control characters but tabs escaped:
        // a report quotes what the program wrote (its stderr tail, an
        // exception's message, thread names), and an escape sequence in it
        // would rewrite the terminal of whoever reads the report, or a
        // newline forge a line of the report itself. Always, not only on a
        // terminal: the text goes to pagers and CI logs that are shown on
        // one later, and the exact bytes stay in the file (`--json`).
        return out.map { OneLine.escaped($0, keepingTabs: true) }.joined(separator: "\n") + "\n"
    }

    /// What took the report's stacks, as the report records it: threads'
    /// stacks by `capture.unwinder` (`handler_stalled.unwinder` when the
    /// crash handler fell back to frame pointers); stacks in the sections
    /// of a report the malloc shim wrote (allocation, free and leak stacks)
    /// by `shim.stack_unwinder`, which is frame pointers (and libunwind
    /// only where a walk cannot leave frame 0) by default even when
    /// libunwind is loaded for the threads. Nil when the report has
    /// no stack. `capture.unwinder` alone named libunwind for leak reports
    /// whose every stack was taken by frame pointers.
    static func unwinders(_ r: Report) -> String? {
        let threads = r.allThreads.contains { !$0.frames.isEmpty }
            ? (r.sections["handler_stalled"]?["unwinder"]?.stringValue ?? r.capture?.unwinder) : nil
        let heap = r.sections.contains { $0.key != "shim" && containsStack($0.value) }
            ? r.sections["shim"]?["stack_unwinder"]?.stringValue : nil
        switch (threads, heap) {
        case let (t?, h?) where t == h: return t
        case let (t?, h?): return "\(t) (threads), \(h) (the malloc shim's heap stacks)"
        case let (t?, nil): return t
        case let (nil, h?): return "\(h) (the malloc shim's heap stacks)"
        case (nil, nil): return nil
        }
    }

    /// True when `value` holds a stack (an array of frame objects) anywhere.
    private static func containsStack(_ value: JSONValue) -> Bool {
        switch value {
        case .array(let items): return SectionFrames.isStack(items) || items.contains(where: containsStack)
        case .object(let o): return o.values.contains(where: containsStack)
        default: return false
        }
    }

    /// `crash in victim-c (pid 6688) at 2026-11-21T23:22:21.130Z, report 0699aecb79fb96e6`
    func header(_ r: Report) -> String {
        let name = r.process.name ?? r.process.executable.map { ($0 as NSString).lastPathComponent } ?? "process"
        let kind = r.detector == r.kind ? r.kind : "\(r.kind) (detector \(r.detector))"
        return "\(kind) in \(name) (pid \(r.process.pid)) at \(r.time), report \(r.id)"
    }

    /// `SIGSEGV (11), SEGV_MAPERR: address not mapped, at address 0x0`, and
    /// `: stack overflow` when the agent took the fault for one; for a
    /// signal the program's handler re-raised, the fault it caught.
    func describe(_ s: Report.SignalInfo) -> String {
        var text = "\(s.name) (\(s.number)), \(s.codeName)"
        let meaning = SignalCodeDescriptions.meaning(of: s.codeName, signal: s.name)
        if let meaning { text += ": \(meaning)" }
        if let a = SignalCodeDescriptions.shownAddress(s.faultAddress, codeName: s.codeName) { text += ", at address \(a)" }
        if let a = s.access, let type = a.type {
            // AddressSanitizer's words: `WRITE of size 4`.
            text += ", \(type.uppercased())" + (a.size.map { " of size \($0)" } ?? "")
        }
        if s.stackOverflow == true { text += ": stack overflow" }
        if let p = s.senderPid { text += ", sent by pid \(p)" }
        if let f = s.reraisedFault {
            text += "; re-raised by the program's handler, which caught \(f.codeName)"
            if let meaning = SignalCodeDescriptions.meaning(of: f.codeName, signal: s.name) { text += ": \(meaning)" }
            if let a = SignalCodeDescriptions.shownAddress(f.faultAddress, codeName: f.codeName) { text += ", at address \(a)" }
            if f.stackOverflow == true { text += ": stack overflow" }
        }
        return text
    }

    private func recrash(_ r: Report.Recrash, stacks: StackFormatter) -> [String] {
        var line = "recrash: the crash handler itself faulted while \(r.stage) (\(describe(r.signal)))"
        if let n = r.partialBytes { line += "; first attempt kept \(n) bytes" }
        if let id = r.firstReportId { line += " of report \(id)" }
        var out = [line]
        if let text = r.partialReport, let t = PartialReport.crashedThread(in: text), !t.frames.isEmpty {
            // The first attempt wrote its frames before it faulted, but not
            // the image list they index into: offsets only.
            out.append("first attempt's crashed thread \(t.tid) (image list not written; image #index + offset):")
            for (n, f) in t.frames.enumerated() {
                var line = "  \(StackFormatter.number(n))\(stacks.hex(f.pc.value))"
                if let i = f.image, let off = f.offset { line += "  image #\(i) + \(off)" }
                out.append(line)
            }
        }
        return out
    }

    private func stderrTail(_ tail: String) -> [String] {
        var lines = tail.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard !lines.isEmpty else { return [] }
        let shown = lines.suffix(options.stderrLines)
        let title = shown.count < lines.count ? "stderr (last \(shown.count) of \(lines.count) lines):" : "stderr:"
        return [title] + shown.map { "  | " + $0 }
    }

    /// `crashed thread 12 "name" (main):`; the report's own thread of a
    /// non-crash report (a hang's culprit) is the "reported thread".
    private func threadTitle(_ t: Report.ThreadInfo, crashed: Bool?) -> String {
        var text: String
        switch crashed {
        case true?: text = "crashed thread \(t.tid)"
        case false?: text = "reported thread \(t.tid)"
        case nil: text = "thread \(t.tid)"
        }
        if let n = t.name { text += " \"\(n)\"" }
        if t.main == true { text += " (main)" }
        if let stack = t.stack { text += ", \(stack) stack" }
        if let u = t.unwinder { text += ", by \(u)" }
        return text + ":"
    }

    private func threadBody(_ t: Report.ThreadInfo, stacks: StackFormatter) -> [String] {
        if t.captured == false, let why = t.captureSkipped { return ["  (not sampled: \(why))"] }
        if t.captured == false { return ["  (did not answer the stack request in time; no stack)"] }
        if t.frames.isEmpty { return ["  (no frames)"] }
        return stacks.lines(t, indent: "  ")
    }

    /// Registers four to a line, in the architecture's usual order.
    private func registerLines(_ regs: [String: Address], stacks: StackFormatter) -> [String] {
        let known = RegisterOrder.x86_64 + RegisterOrder.aarch64
        let names = known.filter { regs[$0] != nil } + regs.keys.filter { !known.contains($0) }.sorted()
        let width = names.map(\.count).max() ?? 3
        let cells = names.compactMap { name in
            regs[name].map { name.padding(toLength: width, withPad: " ", startingAt: 0) + " " + Self.hex16($0.value) }
        }
        return stride(from: 0, to: cells.count, by: 4).map { "  " + cells[$0..<min($0 + 4, cells.count)].joined(separator: "  ") }
    }

    private func imageLines(_ images: [Report.Image], warnings: [SymbolicationWarning], stacks: StackFormatter) -> [String] {
        let indexWidth = "\(images.count - 1)".count
        return images.enumerated().map { i, im in
            let index = String(repeating: " ", count: indexWidth - "\(i)".count) + "\(i)"
            var line = "  [\(index)] \(stacks.hex(im.base.value))  \(im.buildId ?? "(no build-id)")  \(im.path)"
            if let w = warnings.first(where: { $0.imageIndex == i }) { line += "  [\(w.frameNote)]" }
            return line
        }
    }

    /// Enough hex digits for every address in the report (at least 12).
    private func addressDigits(_ r: Report) -> Int {
        var most: UInt64 = 0
        for t in r.allThreads { for f in t.frames { most = max(most, f.pc.value) } }
        for im in r.images ?? [] { most = max(most, im.base.value) }
        return max(12, String(most, radix: 16).count)
    }

    private static func hex16(_ v: UInt64) -> String {
        let d = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 16 - d.count)) + d
    }
}

/// Register names in the order people read them.
enum RegisterOrder {
    static let x86_64 = ["rip", "rsp", "rbp", "rax", "rbx", "rcx", "rdx", "rsi", "rdi",
                         "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "eflags", "cr2", "err", "trapno"]
    static let aarch64 = ["pc", "sp", "fp", "lr"] + (0...28).map { "x\($0)" } + ["pstate"]
}
