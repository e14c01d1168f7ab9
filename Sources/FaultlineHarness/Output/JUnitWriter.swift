import Foundation

/// JUnit XML for CI systems: one `<testcase>` per scenario, failures with
/// every failed check, skips as `<skipped message=…>`.
public enum JUnitWriter {
    /// The XML document.
    public static func render(_ result: SuiteResult) -> String {
        let failures = result.scenarios.filter { $0.verdict.isFailure }.count
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"faultline\" tests=\"\(result.scenarios.count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(result.count(.skip))\" time=\"\(seconds(result.wallSeconds))\">\n"
        xml += "  <testsuite name=\"faultline\" tests=\"\(result.scenarios.count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(result.count(.skip))\" time=\"\(seconds(result.wallSeconds))\" timestamp=\"\(escape(result.startedAt))\">\n"
        for s in result.scenarios {
            let classname = s.scenario.name.split(separator: ".").first.map(String.init) ?? s.scenario.name
            xml += "    <testcase classname=\"\(escape(classname))\" name=\"\(escape(s.scenario.name))\" file=\"\(escape(s.scenario.source.file))\" time=\"\(seconds(s.durationSeconds))\""
            switch s.verdict {
            case .pass:
                xml += "/>\n"
                continue
            case .skip:
                xml += ">\n      <skipped message=\"\(escape(s.reason ?? ""))\"/>\n"
            case .fail, .flaky:
                var body = ""
                for run in s.runs where run.verdict == .fail {
                    if let r = run.repeatIndex { body += "run #\(r):\n" }
                    for f in run.failures { body += f.description + "\n" }
                    if let a = run.artifacts { body += "artifacts: \(a)\n" }
                }
                xml += ">\n      <failure message=\"\(escape(s.reason ?? ""))\" type=\"\(s.verdict.rawValue)\">\(escape(body))</failure>\n"
            }
            xml += "    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    static func seconds(_ s: Double) -> String { String(format: "%.3f", s) }

    /// XML text/attribute escaping; control characters XML 1.0 forbids are dropped.
    static func escape(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n", "\t", "\r": out.unicodeScalars.append(u)
            default:
                if u.value < 0x20 || (0xFFFE...0xFFFF).contains(u.value) { continue }
                out.unicodeScalars.append(u)
            }
        }
        return out
    }
}
