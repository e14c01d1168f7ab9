/// One-line descriptions of a report, for tables.
public enum ReportSummary {
    /// `SIGSEGV SEGV_MAPERR at 0x0`, the Swift fatal error, a recrash note,
    /// or the detector's first section name, whichever the report has.
    public static func oneLine(_ r: Report) -> String {
        var parts: [String] = []
        if let s = r.signal {
            var text = "\(s.name) \(s.codeName)"
            if let a = s.faultAddress { text += " at \(a)" }
            parts.append(text)
        }
        if let m = r.swiftFatalError, let line = m.split(separator: "\n").first {
            // "file.swift:13: Fatal error: message" -> "message"
            let text = line.range(of: "Fatal error: ").map { String(line[$0.upperBound...]) } ?? String(line)
            parts.append(text)
        }
        if let rc = r.recrash { parts.append("recrash while \(rc.stage)") }
        if parts.isEmpty, let key = r.sections.keys.sorted().first { parts.append(key) }
        return parts.joined(separator: "; ")
    }

    /// `2026-11-21 23:22:21` from the report's ISO time.
    public static func shortTime(_ r: Report) -> String {
        let t = r.time.replacingOccurrences(of: "T", with: " ")
        return String(t.prefix(19))
    }
}
