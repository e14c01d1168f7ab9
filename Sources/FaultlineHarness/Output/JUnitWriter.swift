import Foundation

/// JUnit XML for CI systems: one `<testcase>` per scenario, failures with
/// every failed check, skips as `<skipped message=…>`, and reruns as
/// Maven Surefire writes them (which Jenkins and GitLab read): a scenario
/// that passed on a rerun gets one `<flakyFailure>` per failed run and no
/// `<failure>`; one that failed every rerun gets its `<failure>` and one
/// `<rerunFailure>` per rerun.
public enum JUnitWriter {
    /// The XML document of a run.
    public static func render(_ result: SuiteResult) -> String { render(ResultsDocument(result)) }

    /// The XML document of results (a run's or merged shards').
    public static func render(_ doc: ResultsDocument) -> String {
        let failures = doc.scenarios.filter(hasFailureElement).count
        let skipped = doc.scenarios.filter { [.skip, .xfail, .notRun].contains($0.verdict) }.count
        let counts = "tests=\"\(doc.scenarios.count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\" time=\"\(seconds(doc.wallSeconds))\""
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"faultline\" \(counts)>\n"
        xml += "  <testsuite name=\"faultline\" \(counts) timestamp=\"\(escape(doc.startedAt))\">\n"
        for s in doc.scenarios { xml += testcase(s) }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// True when the entry is written with a `<failure>` element.
    static func hasFailureElement(_ s: ResultsDocument.Entry) -> Bool {
        switch s.verdict {
        case .fail, .xpass: return true
        case .flaky: return !s.runs.contains { $0.rerunIndex != nil }
        default: return false
        }
    }

    static func testcase(_ s: ResultsDocument.Entry) -> String {
        let classname = s.name.split(separator: ".").first.map(String.init) ?? s.name
        var xml = "    <testcase classname=\"\(escape(classname))\" name=\"\(escape(s.name))\" file=\"\(escape(s.file))\" time=\"\(seconds(s.durationSeconds))\""
        let reason = escape(s.reason ?? "")
        let reruns = s.runs.contains { $0.rerunIndex != nil }
        var inner = ""
        switch s.verdict {
        case .pass:
            return xml + "/>\n"
        case .skip, .notRun:
            inner = "      <skipped message=\"\(reason)\"/>\n"
        case .xfail:
            inner = "      <skipped message=\"\(reason)\" type=\"XFAIL\"/>\n"
        case .xpass:
            inner = "      <failure message=\"\(reason)\" type=\"XPASS\"/>\n"
        case .flaky where reruns:
            for run in s.runs where run.verdict == .fail {
                inner += "      <flakyFailure message=\"\(escape(run.reason ?? ""))\" type=\"FAIL\"><stackTrace>\(escape(body([run])))</stackTrace></flakyFailure>\n"
            }
        case .fail where reruns:
            let first = s.runs.filter { $0.rerunIndex == nil }, rerun = s.runs.filter { $0.rerunIndex != nil }
            inner = "      <failure message=\"\(reason)\" type=\"FAIL\">\(escape(body(first)))</failure>\n"
            for run in rerun where run.verdict == .fail {
                inner += "      <rerunFailure message=\"\(escape(run.reason ?? ""))\" type=\"FAIL\"><stackTrace>\(escape(body([run])))</stackTrace></rerunFailure>\n"
            }
        case .fail, .flaky:
            inner = "      <failure message=\"\(reason)\" type=\"\(s.verdict.rawValue)\">\(escape(body(s.runs)))</failure>\n"
        }
        xml += ">\n" + inner + "    </testcase>\n"
        return xml
    }

    /// Every failed check of the failed runs among `runs`, with their artifacts folders.
    static func body(_ runs: [RunRecord]) -> String {
        var body = ""
        for run in runs where run.verdict == .fail {
            if let r = run.repeatIndex { body += "run #\(r):\n" }
            if let r = run.rerunIndex { body += "rerun #\(r):\n" }
            for f in run.failures { body += f.description + "\n" }
            if let a = run.artifacts { body += "artifacts: \(a)\n" }
        }
        return body
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
