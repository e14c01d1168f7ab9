import Faultline
import Foundation

/// `faultline exec --annotate KEY=VALUE` and the upload `exec` does when
/// FAULTLINE_SENTRY_DSN is set.
enum ExecAnnotations {
    /// An `--annotate` value that cannot be an annotation.
    struct ParseError: Error, CustomStringConvertible {
        var value: String
        var reason: String
        var description: String { "--annotate \(OneLine.escaped(value)) \(reason); give KEY=VALUE, e.g. --annotate ci_job=1234" }
    }

    /// FAULTLINE_ANNOTATIONS for `values`: `KEY=VALUE` lines, checked.
    static func environmentValue(_ values: [String]) throws(ParseError) -> String {
        var lines: [String] = []
        for v in values {
            guard let eq = v.firstIndex(of: "="), eq != v.startIndex else { throw ParseError(value: v, reason: "has no KEY= before its value") }
            let key = v[..<eq]
            guard key.utf8.count <= 63 else { throw ParseError(value: v, reason: "has a key over 63 bytes") }
            guard !v.contains("\n"), !v.contains("\r") else { throw ParseError(value: v, reason: "holds a line break") }
            guard v.utf8.count - key.utf8.count - 1 <= 255 else { throw ParseError(value: v, reason: "has a value over 255 bytes") }
            lines.append(v)
        }
        return lines.joined(separator: "\n")
    }

    /// Uploads the run's reports to `dsn`; one line either way, never
    /// changing exec's status (the reports stay for `faultline report upload`).
    static func upload(_ paths: [String], dsn: String, symbolicate: Bool) async {
        let destination: ReportUploader.Destination
        do throws(SentryDSN.ParseError) { destination = .sentry(try SentryDSN(dsn)) }
        catch { ReportCommand.stderr("faultline: FAULTLINE_SENTRY_DSN: \(error)"); return }
        guard let reports = try? ReportInputs.load(paths, symbolicate: symbolicate, rules: nil) else { return }
        _ = await ReportCommand.Upload.upload(reports, with: ReportUploader(destination: destination))
    }
}
