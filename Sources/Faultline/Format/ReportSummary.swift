/// One-line descriptions of a report, for tables.
public enum ReportSummary {
    /// `SIGSEGV SEGV_MAPERR at 0x0` (`; stack overflow` when it was one), the Swift fatal error, a recrash or
    /// stalled-handler note, a leak's totals, the line `report show` prints
    /// under the header, or the detector's first section name, whichever
    /// the report has.
    public static func oneLine(_ r: Report) -> String {
        var parts: [String] = []
        if let s = r.signal {
            var text = "\(s.name) \(s.codeName)"
            if let a = SignalCodeDescriptions.shownAddress(s.faultAddress, codeName: s.codeName) { text += " at \(a)" }
            parts.append(text)
            if s.stackOverflow == true { parts.append("stack overflow") }
            if let f = s.reraisedFault {
                var caught = "re-raised \(f.codeName)"
                if let a = SignalCodeDescriptions.shownAddress(f.faultAddress, codeName: f.codeName) { caught += " at \(a)" }
                if f.stackOverflow == true { caught += ", stack overflow" }
                parts.append(caught)
            }
        }
        // The malloc shim's verdict on a crash's address.
        if let verdict = r.sections["memory_error"]?["kind"]?.stringValue { parts.append(verdict) }
        if let m = r.swiftFatalError, let line = m.split(separator: "\n").first {
            // "file.swift:13: Fatal error: message" -> "message"
            let text = line.range(of: "Fatal error: ").map { String(line[$0.upperBound...]) } ?? String(line)
            parts.append(text)
        }
        if let rc = r.recrash { parts.append("recrash while \(rc.stage)") }
        if let stage = r.sections["handler_stalled"]?["stage"]?.stringValue { parts.append("handler stalled while \(stage)") }
        // A leak report's section holds its totals nested, which the generic
        // description below would skip (it said only `trigger=exit`).
        if parts.isEmpty, r.kind == "leak", r.sections["leak"]?["totals"] != nil { parts.append(LeakSummary.totals(of: r)) }
        // The sentence `report show` prints under the header (a heap error,
        // an exception, a hang, a memory-limit event), up to its details.
        if parts.isEmpty, let line = headline(r) { parts.append(line) }
        if parts.isEmpty, let (key, section) = mainSection(r) { parts.append(describe(key, section)) }
        return parts.joined(separator: "; ")
    }

    /// The first line under `report show`'s header, without what follows a
    /// dash (the block's details) and cut at 160 characters.
    static func headline(_ r: Report) -> String? {
        let lines = MemoryErrorHeadline.lines(r) + ExceptionHeadline.lines(r) + WaitHeadline.lines(r) + MemoryLimitHeadline.lines(r)
        guard var line = lines.first, !line.isEmpty else { return nil }
        if let dash = line.range(of: " — ") { line = String(line[..<dash.lowerBound]) }
        return line.count > 160 ? String(line.prefix(159)) + "…" : line
    }

    /// The detector's own section: the one named like the kind (or the
    /// detector), else `exception`, else the first by name.
    static func mainSection(_ r: Report) -> (String, JSONValue)? {
        for key in [r.kind, r.detector, "exception"] { if let s = r.sections[key] { return (key, s) } }
        return r.sections.sorted { $0.key < $1.key }.first.map { ($0.key, $0.value) }
    }

    /// `key: a=1, b=x` from a section's first few plain fields, the ones
    /// people look for first (type, message, cause…) leading.
    static func describe(_ key: String, _ section: JSONValue) -> String {
        guard case .object(let o) = section else { return key }
        let preferred = ["type", "message", "cause", "reason", "state", "mode", "address", "size"]
        let keys = preferred.filter { o[$0] != nil } + o.keys.filter { !preferred.contains($0) }.sorted()
        var fields: [String] = []
        for k in keys where fields.count < 3 {
            switch o[k] ?? .null {
            case .string(let v): fields.append("\(k)=\(v.count > 60 ? String(v.prefix(60)) + "…" : v)")
            case .number(let n): fields.append(n.rounded() == n && abs(n) < 1e15 ? "\(k)=\(Int64(n))" : "\(k)=\(n)")
            default: continue
            }
        }
        return fields.isEmpty ? key : "\(key): " + fields.joined(separator: ", ")
    }

    /// `2026-11-21 23:22:21` from the report's ISO time.
    public static func shortTime(_ r: Report) -> String {
        let t = r.time.replacingOccurrences(of: "T", with: " ")
        return String(t.prefix(19))
    }
}
