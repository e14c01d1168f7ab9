/// Says in words who waits for whom, for the reports whose essentials
/// otherwise sit deep in a detector section: a `deadlock` (its cycle or
/// chain, one line a thread) and a `hang` (how long, and what the thread
/// waits for). Printed under the report's header line, before the stacks.
enum WaitHeadline {
    /// The lines for `report`, or none for other kinds.
    static func lines(_ report: Report) -> [String] {
        switch report.kind {
        case "deadlock": return report.sections["deadlock"].map(deadlock) ?? []
        case "hang", "hang_recovered": return report.sections["hang"].map { [hang($0, thread: report.crashedThread)] } ?? []
        default: return []
        }
    }

    /// `deadlock: a cycle of 2 threads (inferred mode, blocked 50 ms); the process was aborted`
    /// and one `"a" (main, tid 1) waits for mutex 0x… held by "b" (tid 2)` line a thread.
    private static func deadlock(_ d: JSONValue) -> [String] {
        let cycle = d["cycle"]?.arrayValue ?? []
        let chain = d["chain"]?.arrayValue ?? []
        let threads = cycle.isEmpty ? chain : cycle
        var what = cycle.isEmpty
            ? "deadlock: a thread blocked past the deadlock threshold, no cycle"
            : "deadlock: a cycle of \(cycle.count) thread\(cycle.count == 1 ? "" : "s")"
        let facts = [d["mode"]?.stringValue.map { "\($0) mode" },
                     d["blocked_ms"]?.integerValue.map { "blocked \($0) ms" }].compactMap { $0 }
        if !facts.isEmpty { what += " (" + facts.joined(separator: ", ") + ")" }
        switch d["action"]?.stringValue {
        case "abort": what += "; the process was aborted"
        case "continue": what += "; the process was left running"
        default: break
        }
        return [what] + threads.map { "  " + waitLine($0) }
    }

    /// `hang: the main thread "x" (tid 1) did not respond for 2050 ms (threshold 2000 ms, inferred mode); it waits for …`
    private static func hang(_ h: JSONValue, thread: Report.ThreadInfo?) -> String {
        var text = "hang: the main thread"
        let t = h["thread"]
        if let name = thread?.name { text += " \"\(name)\"" }
        if let tid = thread?.tid { text += " (tid \(tid))" }
        let ms = h["duration_ms"]?.integerValue
        text += h["recovered"]?.boolValue == true
            ? " did not respond for \(ms.map { "\($0) ms" } ?? "a while") and then recovered"
            : " has not responded for \(ms.map { "\($0) ms" } ?? "a while")"
        let facts = [h["threshold_ms"]?.integerValue.map { "threshold \($0) ms" },
                     h["mode"]?.stringValue.map { "\($0) mode" },
                     h["cpu_ms"]?.integerValue.map { "\($0) ms on the CPU" }].compactMap { $0 }
        if !facts.isEmpty { text += " (" + facts.joined(separator: ", ") + ")" }
        if let t, let doing = activity(t) { text += "; it " + doing }
        return text
    }

    /// `"a" (main, tid 1) waits for mutex 0x… held by "b" (tid 2)`
    private static func waitLine(_ t: JSONValue) -> String {
        var who = t["name"]?.stringValue.map { "\"\($0)\"" } ?? "a thread"
        var tags: [String] = []
        if t["main"]?.boolValue == true { tags.append("main") }
        if let tid = t["tid"]?.integerValue { tags.append("tid \(tid)") }
        if !tags.isEmpty { who += " (" + tags.joined(separator: ", ") + ")" }
        return who + " " + (activity(t) ?? "state unknown")
    }

    /// `waits for rwlock 0x… held by "w" (tid 7)`, `is in nanosleep`, `is running on the CPU`…
    private static func activity(_ t: JSONValue) -> String? {
        if let w = t["waits_for"] {
            let kind = w["kind"]?.stringValue ?? "futex"
            let address = w["address"]?.stringValue.map { " " + $0 } ?? ""
            switch kind {
            case "join":
                return "joins" + owner(w, dead: "which has exited")
            case "futex":
                return "waits on futex\(address) (a condition variable, semaphore or lock with no owner on record)"
            default:
                let type = w["mutex_type"]?.stringValue.map { " (\($0))" } ?? ""
                return "waits for \(kind.replacingOccurrences(of: "_", with: " "))\(address)\(type)" + owner(w, dead: "which has exited without unlocking it", prefix: " held by")
            }
        }
        guard let state = t["state"]?.stringValue else { return nil }
        if state == "running" { return "is running on the CPU" }
        if let call = t["syscall"]?.stringValue { return "is in \(call)" }
        return "is \(state)"
    }

    /// ` held by "b" (tid 2)`, or the dead owner's tid with `dead`.
    private static func owner(_ w: JSONValue, dead: String, prefix: String = "") -> String {
        guard let tid = w["owner_tid"]?.integerValue else { return "" }
        if w["owner_alive"]?.boolValue == false { return "\(prefix) tid \(tid), \(dead)" }
        let name = w["owner_name"]?.stringValue.map { "\"\($0)\" " } ?? ""
        return "\(prefix) \(name)(tid \(tid))"
    }
}
