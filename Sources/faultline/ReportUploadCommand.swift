import ArgumentParser
import Faultline
import Foundation

extension ReportCommand {
    /// `faultline report upload`.
    struct Upload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send reports to Sentry (--dsn) or an OTLP/HTTP logs endpoint (--otlp).",
            discussion: """
                Each report is sent once per destination: a 2xx answer records it in its folder's \
                .faultline-sent, and the next upload skips it. Network errors, 429 and 5xx are retried \
                with doubling backoff; reports left unsent stay for the next upload. \
                FAULTLINE_SENTRY_DSN is the default for --dsn.
                """)

        @Option(help: "Sentry DSN: https://KEY@HOST/PROJECT_ID (also Sentry-compatible GlitchTip, Bugsink).")
        var dsn: String?

        @Option(help: "OTLP/HTTP logs URL, e.g. http://collector:4318/v1/logs.")
        var otlp: String?

        @Option(help: "Retries after a failed attempt (0-10).")
        var retries: Int = 4

        @Option(help: "Wait before the first retry, in milliseconds; each later one doubles (1-60000).")
        var backoffMs: Int = 500

        @OptionGroup var reportInputs: ReportInputOptions

        func run() async throws {
            guard (0...10).contains(retries) else { ReportCommand.stderr("faultline: --retries \(retries) is out of range; give 0 to 10"); throw ExitCode(64) }
            guard (1...60000).contains(backoffMs) else { ReportCommand.stderr("faultline: --backoff-ms \(backoffMs) is out of range; give 1 to 60000"); throw ExitCode(64) }
            let destination = try Self.destination(dsn: dsn, otlp: otlp)
            let reports = try reportInputs.load()
            var uploader = ReportUploader(destination: destination)
            uploader.retries = retries
            uploader.backoff = Double(backoffMs) / 1000
            let status = await Self.upload(reports, with: uploader)
            if status != 0 { throw ExitCode(status) }
        }

        /// The destination the options name; one line and status 64 when
        /// none or both are given, or one does not parse.
        static func destination(dsn: String?, otlp: String?) throws -> ReportUploader.Destination {
            let dsn = dsn ?? ProcessInfo.processInfo.environment["FAULTLINE_SENTRY_DSN"].flatMap { $0.isEmpty ? nil : $0 }
            switch (dsn, otlp) {
            case (let d?, nil):
                do throws(SentryDSN.ParseError) { return .sentry(try SentryDSN(d)) }
                catch { ReportCommand.stderr("faultline: \(error)"); throw ExitCode(64) }
            case (nil, let o?):
                guard let url = URL(string: o), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                    ReportCommand.stderr("faultline: --otlp \(o.debugDescription) is not an http or https URL; give e.g. http://localhost:4318/v1/logs")
                    throw ExitCode(64)
                }
                return .otlp(url)
            case (nil, nil):
                ReportCommand.stderr("faultline: say where to upload: --dsn DSN (or FAULTLINE_SENTRY_DSN) or --otlp URL")
                throw ExitCode(64)
            default:
                ReportCommand.stderr("faultline: give one of --dsn and --otlp, not both")
                throw ExitCode(64)
            }
        }

        /// Uploads and prints one line; returns 0 when nothing is left unsent, else 75.
        static func upload(_ reports: [(path: String, report: Report)], with uploader: ReportUploader) async -> Int32 {
            let outcome = await uploader.upload(reports)
            for w in outcome.warnings { ReportCommand.stderr("faultline: warning: \(w)") }
            let already = outcome.alreadySent > 0 ? ", \(outcome.alreadySent) sent before" : ""
            let events = outcome.events != outcome.sent ? " as \(outcome.events) event(s), one per leak group" : ""
            if outcome.unsent.isEmpty {
                ReportCommand.stderr("faultline: \(outcome.sent) report(s) uploaded to \(uploader.destination)\(events)\(already)")
                return 0
            }
            let why = outcome.unsent.last!.reason
            ReportCommand.stderr("faultline: \(outcome.unsent.count) of \(reports.count) report(s) not uploaded to \(uploader.destination) (\(why)); they are kept and the next upload sends them; \(outcome.sent) uploaded\(already)")
            return 75
        }
    }
}
