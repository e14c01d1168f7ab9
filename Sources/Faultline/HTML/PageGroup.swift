/// Which group a report belongs to on the page: its kind and the top
/// frame of the program's own code in the stack it is about (the crashed
/// or hung thread, a leak's largest definitely-lost group, a heap error's
/// reporting stack), as crash servers group events by their top in-app
/// frame. This is the one place a report's group is decided: a report
/// that carries a signature (`ReportSignature`, as `report groups` groups
/// them) is grouped by it, titled by its text.
struct PageGroup: Hashable, Comparable {
    /// The report's kind.
    let kind: String
    /// The top program frame's function, or `?` when the stack has none.
    let frame: String
    /// The signature's id, when the report has one.
    let signature: String?

    /// The group of `report`.
    static func key(of report: Report) -> PageGroup {
        if let sig = report.signature { return PageGroup(kind: report.kind, frame: sig.text, signature: sig.id) }
        return PageGroup(kind: report.kind, frame: topProgramFrame(report) ?? "?", signature: nil)
    }

    /// `crash at victim_null_deref`, or the signature's text.
    var title: String { signature != nil ? frame : frame == "?" ? kind : "\(kind) at \(frame)" }

    static func < (a: PageGroup, b: PageGroup) -> Bool { (a.kind, a.frame) < (b.kind, b.frame) }

    /// The function of the first frame of the report's own stack that is
    /// the program's (allocators skipped, as a leak is named by its
    /// caller); the first frame at all when none is.
    static func topProgramFrame(_ r: Report) -> String? {
        let text = FrameText(r)
        guard let frames = mainStack(r), !frames.isEmpty else { return nil }
        let candidates = frames.filter { !LeakSummary.allocatorFunctions.contains($0.symbol?.function ?? "") }
        let pick = candidates.first(where: text.isProgram) ?? candidates.first ?? frames[0]
        return text.function(pick)
    }

    /// The stack a report is about.
    static func mainStack(_ r: Report) -> [Report.Frame]? {
        if r.kind == "leak", let groups = r.sections["groups"]?.arrayValue {
            let lost = groups.filter { $0["class"]?.stringValue == "definitely_lost" }
            let largest = (lost.isEmpty ? groups : lost).max { ($0["bytes"]?.numberValue ?? 0) < ($1["bytes"]?.numberValue ?? 0) }
            return SectionFrames.stack(largest?["allocation_stack"])
        }
        if let frames = r.crashedThread?.frames, !frames.isEmpty { return frames }
        for key in ["allocation_stack", "deallocation_stack", "throw_stack"] {
            if let frames = SectionFrames.stack(r.sections[key]) { return frames }
        }
        if let top = r.sections["top_stacks"]?.arrayValue?.first ?? r.sections["last_breadcrumb"]?["top_stacks"]?.arrayValue?.first {
            return SectionFrames.stack(top["frames"])
        }
        return nil
    }
}
