import Foundation

/// How `ReportFormatter` shows the leak detector's reports, in the manner of
/// LeakSanitizer's: the totals in one line under the header, then each group
/// of lost blocks as `48 bytes in 1 block(s) definitely lost, allocated at:`
/// over its symbolicated allocation stack (definitely lost first, as
/// LeakSanitizer puts direct leaks before indirect ones), the suppressions
/// that matched, and the scan in one line. A `leak_growth` report gets its
/// growth in one line and the growing stack. The sections shown this way are
/// not repeated as `key: value` trees (`handledSections`); a section of
/// another shape is left to the tree.
enum LeakReportText {
    /// The sections of `r` this text shows.
    static func handledSections(_ r: Report) -> Set<String> {
        switch r.kind {
        case "leak":
            var keys: Set<String> = []
            if r.sections["leak"]?["totals"] != nil { keys.insert("leak") }
            if let groups = r.sections["groups"]?.arrayValue, groups.allSatisfy({ $0["class"]?.stringValue != nil }) { keys.insert("groups") }
            if let s = r.sections["suppressions"]?.arrayValue, s.allSatisfy({ $0["pattern"]?.stringValue != nil }) { keys.insert("suppressions") }
            return keys
        case "leak_growth":
            var keys: Set<String> = []
            if r.sections["leak_growth"]?["growth_bytes"] != nil { keys.insert("leak_growth") }
            if SectionFrames.stack(r.sections["allocation_stack"]) != nil { keys.insert("allocation_stack") }
            return keys
        default:
            return []
        }
    }

    /// The line under the header: the totals of a leak check, or the growth.
    static func headline(_ r: Report) -> [String] {
        let handled = handledSections(r)
        switch r.kind {
        case "leak" where handled.contains("leak"):
            let leak = r.sections["leak"]
            var text = "leaks \(trigger(leak?["trigger"]?.stringValue)): \(LeakSummary.totals(of: r))"
            let inherited = leak?["totals"]?["inherited"]?["blocks"]?.integerValue ?? 0
            if inherited > 0 {
                text += "; \(inherited) block(s) inherited from the parent process not checked (FAULTLINE_LEAK_INHERITED=1 checks them)"
            }
            return [text]
        case "leak_growth" where handled.contains("leak_growth"):
            let g = r.sections["leak_growth"]
            let growth = g?["growth_bytes"]?.integerValue ?? 0, live = g?["live_bytes"]?.integerValue ?? 0
            var text = "leak growth: one allocation stack grew by \(growth) bytes over \(g?["snapshots"]?.integerValue ?? 0) snapshots"
            if let ms = g?["interval_ms"]?.integerValue { text += " \(ms) ms apart" }
            if let series = g?["series"]?.arrayValue {
                let values = series.compactMap { $0["live_bytes"]?.integerValue }.map(String.init)
                if !values.isEmpty { text += " (\(values.joined(separator: ", ")) bytes)" }
            }
            text += "; \(live) bytes live"
            if let blocks = g?["live_blocks"]?.integerValue { text += " in \(blocks) block(s)" }
            return [text]
        default:
            return []
        }
    }

    /// The groups with their stacks, the suppressions and the scan; each
    /// part starts with an empty line.
    static func body(_ r: Report, stacks: StackFormatter) -> [String] {
        let handled = handledSections(r)
        var out: [String] = []
        if handled.contains("groups"), let groups = r.sections["groups"]?.arrayValue {
            let order = ["definitely_lost": 0, "indirectly_lost": 1, "still_reachable": 2]
            let sorted = groups.enumerated().sorted { a, b in
                let ka = order[a.element["class"]?.stringValue ?? ""] ?? 3, kb = order[b.element["class"]?.stringValue ?? ""] ?? 3
                return ka != kb ? ka < kb : a.offset < b.offset
            }.map(\.element)
            for g in sorted {
                out.append("")
                var title = LeakSummary.groupTitle(g)
                if let holder = g["held_by"]?.integerValue, groups.indices.contains(Int(holder)) {
                    let origin = LeakSummary().origin(groups[Int(holder)]["allocation_stack"], images: r.images)
                    title += ", held by the definitely lost block(s) from \(origin)"
                }
                if let frames = SectionFrames.stack(g["allocation_stack"]) {
                    out.append(title + ", allocated at:")
                    out += stacks.lines(frames, indent: "  ")
                } else {
                    let why = g["allocation_stack_missing"].map { ": " + (JSONTreeFormatter(stacks: stacks).scalar($0)) } ?? ""
                    out.append(title + ", allocation stack not recorded\(why)")
                }
            }
            let leak = r.sections["leak"]
            if let total = leak?["groups_total"]?.integerValue, total > Int64(groups.count) {
                out.append("")
                var text = "… \(total - Int64(groups.count)) more group(s) not in the report"
                text += leak?["groups_cut_by_size"]?.boolValue == true ? " (its 4 MiB were full)" : " (FAULTLINE_LEAK_MAX_GROUPS)"
                out.append(text)
            }
        }
        if handled.contains("suppressions"), let list = r.sections["suppressions"]?.arrayValue, !list.isEmpty {
            out.append("")
            out.append("suppressed:")
            for s in list {
                let blocks = s["blocks"]?.integerValue ?? 0, bytes = s["bytes"]?.integerValue ?? 0
                out.append("  leak:\(s["pattern"]?.stringValue ?? "?")  \(blocks) block(s), \(bytes) bytes")
            }
        }
        if handled.contains("leak"), let scan = r.sections["leak"]?["scan"] {
            var parts: [String] = []
            if let n = scan["live_blocks"]?.integerValue { parts.append("\(n) live blocks") }
            if let n = scan["root_bytes"]?.integerValue { parts.append("\(n) bytes of roots read") }
            if let n = scan["threads_stopped"]?.integerValue { parts.append("\(n) thread(s) stopped") }
            if let n = scan["threads_not_stopped"]?.integerValue, n > 0 { parts.append("\(n) not stopped (their whole stacks read)") }
            if let us = scan["stop_us"]?.numberValue { parts.append(String(format: "stop %.2f ms", us / 1000)) }
            if let us = scan["scan_us"]?.numberValue { parts.append(String(format: "scan %.2f ms", us / 1000)) }
            if !parts.isEmpty { out += ["", "scan: " + parts.joined(separator: ", ")] }
        }
        if handled.contains("allocation_stack"), let frames = SectionFrames.stack(r.sections["allocation_stack"]) {
            out += ["", "growing allocations, allocated at:"] + stacks.lines(frames, indent: "  ")
        }
        return out
    }

    /// `at exit`, `on request (faultline_leak_check)`, `on the leak signal`.
    private static func trigger(_ t: String?) -> String {
        switch t {
        case "exit": return "at exit"
        case "api": return "on request (faultline_leak_check)"
        case "signal": return "on the leak signal (FAULTLINE_LEAK_SIGNAL)"
        case let other?: return "(trigger \(other))"
        case nil: return "(trigger not recorded)"
        }
    }
}
