import Foundation

/// How `ReportFormatter` shows the resource detectors' reports
/// (docs/resources.md): a line under the header with what was found —
/// `cpu_hog`'s share of a core, `fd_leak`'s and `fd_pressure`'s
/// descriptors, `thread_leak`'s and `thread_growth`'s threads, `launch`'s
/// split — then each group with its stack, most first: a cpu_hog's sampled
/// stacks with their counts, descriptors with what each is
/// (`fd 3: file /etc/app.conf`), threads with their ids. The lists shown
/// this way are left out of the section's `key: value` tree.
enum ResourceReportText {
    /// The section of `r` this text knows, and the key of its list.
    private static func place(_ r: Report) -> (section: String, list: String)? {
        switch r.kind {
        case "cpu_hog": return ("cpu_hog", "stacks")
        case "fd_leak", "fd_pressure": return (r.kind, "groups")
        case "thread_leak", "thread_growth": return (r.kind, "groups")
        case "launch": return ("launch", "")
        default: return nil
        }
    }

    private static func int(_ v: JSONValue?) -> Int64 { v?.integerValue ?? 0 }

    /// The line under the header.
    static func headline(_ r: Report) -> [String] {
        guard let (key, _) = place(r), let s = r.sections[key] else { return [] }
        switch r.kind {
        case "cpu_hog":
            let thread = r.crashedThread.map { "thread \($0.tid)" + ($0.name.map { " \"\($0)\"" } ?? "") } ?? "a thread"
            return ["cpu_hog: \(thread) used \(int(s["share_percent"])) % of a core for \(int(s["duration_ms"])) ms "
                + "(\(int(s["cpu_ms"])) ms CPU; the process \(int(s["process_share_percent"])) %), "
                + "above \(int(s["threshold_percent"])) % for \(int(s["window_ms"])) ms"]
        case "fd_leak":
            return ["fd_leak: \(int(s["descriptors"])) descriptor(s) still open at exit, opened from \(int(s["stacks"])) stack(s)"]
        case "fd_pressure":
            return ["fd_pressure: \(int(s["descriptors"])) descriptor(s) open, near the soft limit of \(int(s["soft_limit"]))"]
        case "thread_leak":
            return ["thread_leak: \(int(s["threads"])) thread(s) finished and were never joined or detached"]
        case "thread_growth":
            return ["thread_growth: \(int(s["threads"])) thread(s) running (mark \(int(s["mark"])))"]
        case "launch":
            var line = "launch: \(int(s["duration_ms"])) ms (threshold \(int(s["threshold_ms"])) ms)"
            if s["exec_to_main_ms"] != nil {
                line += "; \(int(s["exec_to_main_ms"])) ms to main: loading \(int(s["loading_ms"])) ms, constructors \(int(s["constructors_ms"])) ms"
            }
            if let by = s["ready_by"]?.stringValue { line += "; ready \(int(s["main_to_ready_ms"])) ms after main (\(by))" }
            return [line]
        default:
            return []
        }
    }

    /// The groups with their stacks, after an empty line each.
    static func body(_ r: Report, stacks formatter: StackFormatter) -> [String] {
        guard let (key, list) = place(r), !list.isEmpty, let items = r.sections[key]?[list]?.arrayValue else { return [] }
        var out: [String] = []
        for item in items {
            let count = int(item["count"])
            out.append("")
            switch r.kind {
            case "cpu_hog":
                out.append("\(count) sample(s) in:")
                out += formatter.lines(SectionFrames.stack(item["frames"]) ?? [], indent: "  ")
            case "fd_leak", "fd_pressure":
                out.append("\(count) descriptor(s) opened by \(item["opened_by"]?.stringValue ?? "?") at:")
                out += formatter.lines(SectionFrames.stack(item["opening_stack"]) ?? [], indent: "  ")
                for fd in item["fds"]?.arrayValue ?? [] {
                    out.append("  fd \(int(fd["fd"])): \(fd["type"]?.stringValue ?? "?")" + (fd["target"]?.stringValue.map { " \($0)" } ?? ""))
                }
            default:
                out.append("\(count) thread(s) created at:")
                out += formatter.lines(SectionFrames.stack(item["creating_stack"]) ?? [], indent: "  ")
                let ids = (item["threads"]?.arrayValue ?? []).compactMap { t -> String? in
                    t["tid"].map { "\(int($0))" + (t["name"]?.stringValue.map { " \"\($0)\"" } ?? "") }
                }
                if !ids.isEmpty { out.append("  threads: " + ids.joined(separator: ", ")) }
            }
        }
        return out
    }

    /// The section to print otherwise: without the list shown above.
    static func sectionOverrides(_ r: Report) -> [String: JSONValue?] {
        guard let (key, list) = place(r), !list.isEmpty, case .object(var o)? = r.sections[key], o[list] != nil else { return [:] }
        o.removeValue(forKey: list)
        return [key: .object(o)]
    }
}
