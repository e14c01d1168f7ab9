import Foundation

/// A report as a Sentry native event (docs/export.md, "Sentry"): the
/// reported stack as `exception` (signal or C++ exception, with
/// `mechanism`), every thread in `threads` with the crashed one marked,
/// `debug_meta.images` of type `elf` (build id as `code_id`, `debug_id`
/// from it), the signature as `fingerprint`, kind, detector, phase and
/// annotations as `tags`. A leak report is one event per leak group
/// (`ExportItem`).
public enum SentryEvent {
    /// Levels by kind: a process ended is `fatal`, a state that passed a
    /// `warning`, the rest `error`.
    static func level(_ kind: String) -> String {
        switch kind {
        case "crash", "cxx_exception", "oom_kill": return "fatal"
        case "hang_recovered", "memory_warning", "leak_growth": return "warning"
        default: return "error"
        }
    }

    /// 32 hex digits from the report id: the same report always gets the
    /// same event id, so a second upload of it is the same event to Sentry.
    /// A leak group's event id also holds the group's index.
    public static func eventID(of report: Report, leakGroup: Int? = nil) -> String {
        let id = report.id.lowercased().filter(\.isHexDigit)
        let tail = ReportSignature.hash("sentry-event " + report.id + (leakGroup.map { " group \($0)" } ?? ""))
        return String((id + tail + String(repeating: "0", count: 32)).prefix(32))
    }

    /// The event of a whole report (its first item's, for a leak report).
    public static func event(_ report: Report) -> [String: Any] {
        event(ExportItem.items(of: report)[0])
    }

    /// The event as a JSON object (JSONSerialization types): for a leak
    /// group, its title and allocation stack as the exception and its
    /// signature as the fingerprint.
    public static func event(_ item: ExportItem) -> [String: Any] {
        let report = item.report
        let facts = ExceptionFacts(item)
        var event: [String: Any] = [
            "event_id": eventID(of: report, leakGroup: item.leakGroup),
            "timestamp": Double(report.timeUnixMs) / 1000,
            "platform": "native",
            "level": level(report.kind),
            "logger": "faultline",
            "sdk": ["name": "faultline", "version": FaultlineVersion.text],
        ]
        if case .string(let host)? = report.sections["host"] { event["server_name"] = host }
        var exception: [String: Any] = ["type": facts.type, "value": facts.message]
        var mechanism: [String: Any] = ["type": report.kind == "crash" ? "signalhandler" : "faultline.\(report.detector)",
                                        "handled": level(report.kind) != "fatal"]
        if let s = report.signal {
            mechanism["synthetic"] = true
            mechanism["meta"] = ["signal": ["number": s.number, "code": s.code, "name": s.name, "code_name": s.codeName]]
        }
        exception["mechanism"] = mechanism
        if !facts.frames.isEmpty { exception["stacktrace"] = ["frames": frames(facts.frames, report)] }
        // A leak's stack is where the block was allocated, no thread's now.
        if let t = report.crashedThread, item.leakGroup == nil { exception["thread_id"] = t.tid }
        event["exception"] = ["values": [exception]]

        var threads: [[String: Any]] = []
        if let t = report.crashedThread {
            var o = thread(t, report)
            o["crashed"] = true
            o["current"] = true
            // The exception carries this thread's stack unless it is another one's.
            if facts.stackName == "crashed_thread" { o["stacktrace"] = nil }
            threads.append(o)
        }
        for t in report.threads ?? [] { threads.append(thread(t, report)) }
        if !threads.isEmpty { event["threads"] = ["values": threads] }

        let images: [[String: Any]] = (report.images ?? []).compactMap { image in
            guard let build = image.buildId, let debugID = DebugID.fromBuildID(build) else { return nil }
            var o: [String: Any] = ["type": "elf", "code_id": build.lowercased(), "debug_id": debugID, "code_file": image.path,
                                    "image_addr": "0x" + String(image.base.value, radix: 16), "image_size": Int(image.size)]
            if let bias = image.loadBias { o["image_vmaddr"] = "0x" + String(image.base.value &- bias.value, radix: 16) }
            return o
        }
        if !images.isEmpty { event["debug_meta"] = ["images": images] }

        let signature = item.signature
        event["fingerprint"] = [signature.id]
        var tags: [String: String] = [:]
        for (k, v) in Annotations.values(of: report) { tags[tagKey(k)] = tagValue(v) }
        tags["kind"] = report.kind
        tags["detector"] = report.detector
        tags["faultline.signature"] = signature.id
        if let phase = Annotations.phase(of: report) { tags["phase"] = tagValue(phase) }
        var extra: [String: Any] = ["faultline.report_id": report.id, "faultline.signature": signature.text,
                                    "faultline.process": "\(report.process.name ?? "?")[\(report.process.pid)]"]
        if let g = item.leakGroup {
            tags["leak.class"] = item.groupValue?["class"]?.stringValue.map(tagValue) ?? "-"
            extra["faultline.leak_group"] = g
            extra["faultline.leak_groups"] = report.sections["groups"]?.arrayValue?.count ?? 0
        }
        event["tags"] = tags
        event["extra"] = extra
        return event
    }

    /// Sentry frames, outermost first (Sentry's order), inlined functions
    /// as frames of their own at the same address.
    static func frames(_ frames: [Report.Frame], _ report: Report) -> [[String: Any]] {
        var out: [[String: Any]] = []
        for frame in frames where frame.signalFrame != true {
            let addr = "0x" + String(frame.pc.value, radix: 16)
            let package = report.image(of: frame)?.path
            let symbols: [Report.Symbol?] = frame.symbol.map { s in ((s.inlined ?? []) + [s]).map { Optional($0) } } ?? [nil]
            for s in symbols {
                var o: [String: Any] = ["instruction_addr": addr]
                if let package { o["package"] = package }
                if let s {
                    o["function"] = s.function
                    if let f = s.file { o["filename"] = f }
                    if let l = s.line, l > 0 { o["lineno"] = l }
                    if let c = s.column, c > 0 { o["colno"] = c }
                }
                out.append(o)
            }
        }
        return out.reversed()
    }

    static func thread(_ t: Report.ThreadInfo, _ report: Report) -> [String: Any] {
        var o: [String: Any] = ["id": t.tid, "crashed": false, "current": false]
        if let n = t.name { o["name"] = n }
        if t.main == true || t.tid == report.process.pid { o["main"] = true }
        let f = frames(t.frames, report)
        if !f.isEmpty { o["stacktrace"] = ["frames": f] }
        return o
    }

    /// Sentry tag keys: at most 32 characters of letters, digits, `_.:-`.
    static func tagKey(_ k: String) -> String {
        let kept = k.map { $0.isASCII && ($0.isLetter || $0.isNumber || "_.:-".contains($0)) ? $0 : "_" }
        return String(String(kept).prefix(32))
    }

    /// Sentry tag values: one line, at most 200 characters.
    static func tagValue(_ v: String) -> String {
        let line = v.map { $0 == "\n" || $0 == "\r" ? " " : $0 }
        let s = String(String(line).prefix(200)).trimmingCharacters(in: .whitespaces)
        return s.isEmpty ? "-" : s
    }
}
