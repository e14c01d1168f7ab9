import Foundation

/// One report's section of the page: a header line, what happened in a
/// few lines (the sentences `report show` prints under its header), then
/// the views the report's kind has — a flame graph of its samples, the
/// wait graph, the memory timeline, the sized leak groups — and its
/// stacks, collapsed to the program's frames, with every other thread and
/// the stderr tail behind `<details>`.
struct ReportSection {
    let report: Report
    let warnings: [SymbolicationWarning]
    /// The file it came from.
    let path: String?
    /// Its number on the page, which makes its element ids unique.
    let index: Int

    /// The report's anchor on the page.
    static func anchor(_ r: Report, index: Int) -> String { "r\(index)-\(HTMLText.escaped(r.id))" }

    /// The whole section.
    func render() -> String {
        let text = FrameText(report)
        let stacks = StackHTML(text: text)
        var out = open()
        if let tree = callTree() {
            let culprit = report.crashedThread?.stack == "culprit" ? report.crashedThread?.frames ?? [] : []
            out += "<h3>Samples</h3>\n<p class=\"caption\">\(samplesCaption(tree, culprit: culprit))</p>\n"
            out += "<div class=\"scroll\">" + FlameGraph(tree: tree, text: text, culprit: culprit).render() + "</div>\n"
        }
        if let graph = WaitGraph(report) {
            out += "<h3>\(report.kind == "deadlock" ? "Wait-for graph" : "What the thread waits for")</h3>\n"
            out += "<div class=\"scroll\">" + graph.render(id: "\(index)") + "</div>\n"
        }
        if let timeline = MemoryTimeline(report) {
            out += "<h3>Memory</h3>\n<div class=\"scroll\">" + timeline.render() + "</div>\n"
        }
        if let leaks = SizedStacks(leak: report) {
            out += "<h3>Leak groups</h3>\n" + leaks.render(stacks: stacks)
        }
        if let top = SizedStacks(topStacksOf: report) {
            out += "<h3>Heaviest allocation stacks</h3>\n" + top.render(stacks: stacks)
        }
        if let t = report.crashedThread {
            out += "<h3>\(HTMLText.escaped(threadTitle(t, reported: true)))</h3>\n" + stacks.render(t)
        }
        for (title, frames) in sectionStacks() {
            out += "<h3>\(HTMLText.escaped(title))</h3>\n" + stacks.render(frames)
        }
        let others = (report.threads ?? []).filter { $0.agent != true && !RepeatedStacks.repeatsReportedThread($0, in: report) }
        if !others.isEmpty {
            out += "<details class=\"threads\"><summary>\(others.count) other thread\(others.count == 1 ? "" : "s")</summary>\n"
            for t in others { out += "<h4>\(HTMLText.escaped(threadTitle(t, reported: false)))</h4>\n" + stacks.render(t) }
            out += "</details>\n"
        }
        if let tail = report.stderrTail, !tail.isEmpty {
            out += "<details class=\"stderr\"><summary>stderr (last \(tail.utf8.count) bytes)</summary><pre>\(HTMLText.escaped(tail))</pre></details>\n"
        }
        return out + "</section>\n"
    }

    /// The section's opening: anchor, header, headline lines.
    private func open() -> String {
        let r = report
        let name = r.process.name ?? r.process.executable.map { ($0 as NSString).lastPathComponent } ?? "process"
        var out = "<section class=\"report kind-\(HTMLText.escaped(r.kind))\" id=\"\(Self.anchor(r, index: index))\">\n"
        out += "<h2><span class=\"num\">\(index)</span> <span class=\"kind\">\(HTMLText.escaped(r.kind))</span> in \(HTMLText.escaped(name)) "
            + "<span class=\"pid\">(pid \(r.process.pid))</span> <span class=\"time\">\(HTMLText.escaped(r.time))</span></h2>\n"
        out += "<p class=\"file\">report \(HTMLText.escaped(r.id))\(path.map { " · " + HTMLText.escaped($0) } ?? "")</p>\n"
        let lines = headlines()
        if !lines.isEmpty {
            out += "<ul class=\"headline\">\n" + lines.map { "<li>\(HTMLText.escaped($0))</li>\n" }.joined() + "</ul>\n"
        }
        return out
    }

    /// What `report show` says under its header, in its order.
    private func headlines() -> [String] {
        let r = report
        var lines = WaitHeadline.lines(r) + ExceptionHeadline.lines(r) + MemoryLimitHeadline.lines(r) + LeakReportText.headline(r)
        if let s = r.signal { lines.append("signal: " + ReportFormatter().describe(s)) }
        lines += MemoryErrorHeadline.lines(r)
        if let m = r.swiftFatalError?.trimmingCharacters(in: .whitespacesAndNewlines), !m.isEmpty { lines.append("Swift fatal error: " + m) }
        if let rc = r.recrash { lines.append("recrash: the crash handler itself faulted while \(rc.stage)") }
        lines += HandlerStallHeadline.lines(r)
        lines += warnings.map { "warning: \($0)" }
        return lines
    }

    /// The samples' call tree: a section's `call_tree` (a hang's, a CPU
    /// report's), nil when the report has none.
    private func callTree() -> FlameTree? {
        for key in [report.kind, report.detector, "hang", "cpu"] {
            if let tree = FlameTree(callTree: report.sections[key]?["call_tree"]) { return tree.mergedByFunction() }
        }
        return FlameTree(callTree: report.sections["call_tree"])?.mergedByFunction()
    }

    private func samplesCaption(_ tree: FlameTree, culprit: [Report.Frame]) -> String {
        var text = "\(Int64(tree.total)) sample(s) merged root first; a box is as wide as the samples through it."
        if let c = report.sections["hang"]?["culprit"], let count = c["count"]?.integerValue, let of = c["of"]?.integerValue {
            text += " The culprit stack (red) was \(count) of \(of) samples."
        } else if !culprit.isEmpty {
            text += " The culprit stack is red."
        }
        return HTMLText.escaped(text)
    }

    /// `crashed thread 12 "name" (main)`.
    private func threadTitle(_ t: Report.ThreadInfo, reported: Bool) -> String {
        let crashed = report.signal != nil || report.kind == "crash" || report.kind == "cxx_exception"
        var title = reported ? (crashed ? "crashed thread \(t.tid)" : "reported thread \(t.tid)") : "thread \(t.tid)"
        if reported, let verb = HeapErrorText.threadVerb(report) { title = "\(verb) by thread \(t.tid)" }
        if let n = t.name { title += " \"\(n)\"" }
        if t.main == true { title += " (main)" }
        if let s = t.stack { title += ", \(s) stack" }
        return title
    }

    /// Sections drawn by a view of their own, whose stacks are not listed again.
    static let drawn: Set<String> = ["hang", "cpu", "call_tree", "groups", "top_stacks", "last_breadcrumb", "deadlock"]
    /// Stacks that repeat the reported thread.
    static let repeats: Set<String> = ["deallocation_stack", "second_free_stack"]

    /// Every other stack in the report's sections (a heap block's free and
    /// allocation stacks, an exception's throw stack), titled by where it is.
    private func sectionStacks() -> [(String, [Report.Frame])] {
        var out: [(String, [Report.Frame])] = []
        func walk(_ value: JSONValue, _ path: [String]) {
            if let frames = SectionFrames.stack(value) {
                out.append((path.map { $0.replacingOccurrences(of: "_", with: " ") }.joined(separator: " › "), frames))
                return
            }
            switch value {
            case .object(let o): for k in o.keys.sorted() { walk(o[k]!, path + [k]) }
            case .array(let a) where a.count <= 16: for (i, v) in a.enumerated() { walk(v, path + ["\(i)"]) }
            default: break
            }
        }
        for key in report.sections.keys.sorted() where !Self.drawn.contains(key) && !Self.repeats.contains(key) {
            walk(report.sections[key]!, [key])
        }
        return out
    }
}
