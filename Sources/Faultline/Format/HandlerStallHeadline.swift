/// The line that says a report was written a second time because the crash
/// handler stalled (`handler_stalled` section): while doing what, for how
/// long, and what the second report leaves out.
enum HandlerStallHeadline {
    /// The line for `report`, or none when its handler did not stall.
    static func lines(_ report: Report) -> [String] {
        guard let s = report.sections["handler_stalled"] else { return [] }
        let stage = s["stage"]?.stringValue ?? "an unknown stage"
        var text = "handler stalled: the crash handler made no progress"
        if let ms = s["stalled_ms"]?.integerValue { text += " for \(ms) ms" }
        text += " while \(stage)"
        if let deadline = s["deadline_ms"]?.integerValue { text += " (FAULTLINE_CRASH_DEADLINE_MS=\(deadline))" }
        text += "; this report was written again without it: the crashed thread's stack by frame pointers only, no other threads"
        return [text]
    }
}
