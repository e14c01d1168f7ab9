import Foundation

/// A memory-limit event in one line, for `oom_kill` and `memory_warning`
/// reports, whose figures otherwise sit in sections below the header:
/// who was killed and by what, against which limit and peak, and the last
/// threshold the process's monitor passed; or how full the cgroup was when
/// the kernel warned.
enum MemoryLimitHeadline {
    /// The line for `report`, or none for other kinds.
    static func lines(_ report: Report) -> [String] {
        switch report.kind {
        case "oom_kill": return [oomKill(report)]
        case "memory_warning": return report.sections["memory"].map { [warning(report, memory: $0)] } ?? []
        default: return []
        }
    }

    /// `OOM kill: victim-oom (pid 7) killed by the kernel's OOM killer; limit 64.0 MiB, peak 64.0 MiB (hit 23 times); last breadcrumb at 95% (61.0 MiB)`
    private static func oomKill(_ r: Report) -> String {
        let s = r.sections
        var text = "OOM kill: \(r.process.name ?? "process") (pid \(r.process.pid))"
        text += " " + (s["evidence"]?["started_process"]?.stringValue ?? "killed")
        var figures: [String] = []
        if let limit = s["limit_bytes"]?.numberValue { figures.append("limit \(mib(limit))") }
        if let peak = s["peak_bytes"]?.numberValue { figures.append("peak \(mib(peak))") }
        if !figures.isEmpty { text += "; " + figures.joined(separator: ", ") }
        if let hits = s["evidence"]?["limit_hits"]?.integerValue { text += " (limit hit \(hits) time\(hits == 1 ? "" : "s"))" }
        if let b = s["last_breadcrumb"], let pct = b["threshold_percent"]?.integerValue {
            text += "; last breadcrumb at \(pct)%"
            if let used = b["usage_bytes"]?.numberValue { text += " (\(mib(used)))" }
        } else {
            text += "; no breadcrumb from its memory monitor"
        }
        return text
    }

    /// `memory warning 1: 31.9 MiB of a 32.0 MiB limit (99%), from memory.pressure_level medium`
    private static func warning(_ r: Report, memory m: JSONValue) -> String {
        var text = "memory warning"
        if let n = r.sections["warning_number"]?.integerValue { text += " \(n)" }
        text += ":"
        if let used = m["usage_bytes"]?.numberValue { text += " \(mib(used)) used" }
        if let limit = m["limit_bytes"]?.numberValue { text += " of a \(mib(limit)) limit" }
        if let pct = m["percent"]?.integerValue { text += " (\(pct)%)" }
        if let p = r.sections["pressure"], let source = p["source"]?.stringValue {
            text += ", from \(source)"
            if let level = p["level"]?.stringValue { text += " \(level)" }
        }
        return text
    }

    private static func mib(_ bytes: Double) -> String { String(format: "%.1f MiB", bytes / 1048576) }
}
