import Foundation

/// Reports as OTLP/HTTP JSON logs (`LogsData`, the body of a POST to
/// `/v1/logs`): one resource per process (`service.name`, `process.pid`,
/// `process.executable.path`, `host.name`), one log record per report (per
/// leak group for a leak report, `ExportItem`) with
/// the `exception.type`, `exception.message` and `exception.stacktrace`
/// semantic conventions plus `faultline.signature`, `faultline.kind`,
/// `faultline.detector`, `faultline.report_id`, the phase and each
/// annotation (`faultline.annotation.KEY`). 64-bit integers are strings,
/// as the protobuf JSON mapping writes them.
public enum OTLPLogs {
    /// `LogsData` for `reports`, as a JSON object.
    public static func logsData(_ reports: [Report]) -> [String: Any] {
        var byProcess: [String: (Report, [[String: Any]])] = [:]
        var order: [String] = []
        for r in reports {
            let key = "\(r.sections["host"]?.stringValue ?? "")/\(r.process.pid)/\(r.process.executable ?? "")"
            if byProcess[key] == nil { byProcess[key] = (r, []); order.append(key) }
            byProcess[key]!.1 += ExportItem.items(of: r).map(record)
        }
        let resourceLogs: [[String: Any]] = order.map { key in
            let (first, records) = byProcess[key]!
            var attrs = [attr("service.name", first.process.name ?? "unknown"), attrInt("process.pid", first.process.pid)]
            if let exe = first.process.executable { attrs.append(attr("process.executable.path", exe)) }
            if let host = first.sections["host"]?.stringValue { attrs.append(attr("host.name", host)) }
            return ["resource": ["attributes": attrs],
                    "scopeLogs": [["scope": ["name": "faultline", "version": FaultlineVersion.text], "logRecords": records]]]
        }
        return ["resourceLogs": resourceLogs]
    }

    /// OTLP severity numbers: FATAL 21, ERROR 17, WARN 13.
    static func severity(_ kind: String) -> (Int, String) {
        switch SentryEvent.level(kind) {
        case "fatal": return (21, "FATAL")
        case "warning": return (13, "WARN")
        default: return (17, "ERROR")
        }
    }

    static func record(_ item: ExportItem) -> [String: Any] {
        let r = item.report
        let facts = ExceptionFacts(item)
        let signature = item.signature
        var attrs = [attr("exception.type", facts.type), attr("exception.message", facts.message),
                     attr("exception.stacktrace", stacktrace(facts, r)),
                     attr("faultline.signature", signature.id), attr("faultline.signature.text", signature.text),
                     attr("faultline.kind", r.kind), attr("faultline.detector", r.detector), attr("faultline.report_id", r.id)]
        if let g = item.leakGroup {
            attrs.append(attrInt("faultline.leak_group", g))
            if let c = item.groupValue?["class"]?.stringValue { attrs.append(attr("faultline.leak.class", c)) }
        }
        if let phase = Annotations.phase(of: r) { attrs.append(attr("faultline.phase", phase)) }
        for (k, v) in Annotations.values(of: r) { attrs.append(attr("faultline.annotation." + k, v)) }
        let (number, text) = severity(r.kind)
        let ns = r.timeUnixNs ?? r.timeUnixMs &* 1_000_000
        let o: [String: Any] = ["timeUnixNano": String(ns), "observedTimeUnixNano": String(ns), "severityNumber": number,
                                "severityText": text, "body": ["stringValue": "\(r.kind) in \(r.process.name ?? "?"): \(facts.message)"],
                                "attributes": attrs]
        return o
    }

    /// The stack as text, one frame a line, as `exception.stacktrace` wants
    /// (the language's usual form; here gdb's `#N  0xADDR in FUNCTION at FILE:LINE (IMAGE)`).
    static func stacktrace(_ facts: ExceptionFacts, _ r: Report) -> String {
        var lines = ["\(facts.type): \(facts.message)"]
        for (n, f) in facts.frames.enumerated() where f.signalFrame != true {
            var line = "#\(n)  0x\(String(f.pc.value, radix: 16))"
            if let s = f.symbol {
                line += " in \(s.function)"
                if let file = s.file { line += " at \(file)" + (s.line.map { ":\($0)" } ?? "") }
            }
            if let image = r.image(of: f) { line += " (\((image.path as NSString).lastPathComponent))" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    static func attr(_ key: String, _ value: String) -> [String: Any] { ["key": key, "value": ["stringValue": value]] }
    static func attrInt(_ key: String, _ value: Int) -> [String: Any] { ["key": key, "value": ["intValue": String(value)]] }
}
