import Foundation

/// How `ReportFormatter` shows the allocation stacks with the most live
/// bytes that the memory monitor records with the malloc shim loaded
/// (`top_stacks` of a `memory_warning`, and of an `oom_kill`'s
/// `last_breadcrumb`): each as `37.0 MiB live in 37 block(s), allocated
/// at:` over its stack, heaviest first, the way leak groups are shown —
/// not as a `key: value` tree of frames and counts.
enum TopStacksText {
    /// Where a report keeps its top stacks: the section, and the key
    /// inside it (nil: the section is the list itself).
    private static func place(_ r: Report) -> (section: String, key: String?)? {
        switch r.kind {
        case "memory_warning": return ("top_stacks", nil)
        case "oom_kill": return ("last_breadcrumb", "top_stacks")
        default: return nil
        }
    }

    /// The stacks, when every one has frames and a byte count.
    private static func stacks(_ r: Report) -> [JSONValue]? {
        guard let (section, key) = place(r), var value = r.sections[section] else { return nil }
        if let key { guard let inner = value[key] else { return nil }; value = inner }
        guard let items = value.arrayValue, !items.isEmpty,
              items.allSatisfy({ SectionFrames.stack($0["frames"]) != nil && $0["live_bytes"]?.numberValue != nil })
        else { return nil }
        return items
    }

    /// The title and the stacks, after an empty line.
    static func body(_ r: Report, stacks formatter: StackFormatter) -> [String] {
        guard let items = stacks(r) else { return [] }
        let when = r.kind == "oom_kill" ? "at the last breadcrumb" : "when the warning was taken"
        var out = ["", "heaviest allocation stacks (live heap \(when)):"]
        for s in items.sorted(by: { ($0["live_bytes"]?.numberValue ?? 0) > ($1["live_bytes"]?.numberValue ?? 0) }) {
            var title = "\(size(s["live_bytes"]?.numberValue ?? 0)) live"
            if let blocks = s["live_blocks"]?.integerValue { title += " in \(blocks) block(s)" }
            out.append("")
            out.append(title + ", allocated at:")
            out += formatter.lines(SectionFrames.stack(s["frames"]) ?? [], indent: "  ")
        }
        return out
    }

    /// The section to print otherwise: the top stacks left out (of the
    /// breadcrumb, whose other fields are still printed).
    static func sectionOverrides(_ r: Report) -> [String: JSONValue?] {
        guard stacks(r) != nil, let (section, key) = place(r) else { return [:] }
        let hidden: JSONValue? = nil
        guard let key, case .object(var o)? = r.sections[section] else { return [section: hidden] }
        o.removeValue(forKey: key)
        return [section: o.isEmpty ? hidden : .object(o)]
    }

    /// `37.0 MiB`, or `100800 bytes` below a MiB.
    private static func size(_ bytes: Double) -> String {
        // A corrupt report's -1e300 must not trap in Int64().
        bytes < 1048576 && bytes > -1048576 ? "\(Int64(bytes)) bytes" : String(format: "%.1f MiB", bytes / 1048576)
    }
}
