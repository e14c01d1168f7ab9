import ArgumentParser
import Faultline
import Foundation

extension ReportCommand {
    /// `faultline report export`.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write reports as Sentry envelopes or OTLP/HTTP JSON logs.",
            discussion: """
                One file per report in --output: <id>.envelope (--format sentry: the native event and \
                the report as an attachment; a leak report one <id>-g<N>.envelope per leak group) or \
                <id>.otlp.json (--format otlp-json: LogsData, one log record per leak group). \
                docs/export.md maps the fields.
                """)

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case sentry
            case otlpJSON = "otlp-json"
        }

        @Option(help: "sentry or otlp-json.")
        var format: Format

        @Option(name: .shortAndLong, help: "Folder the files are written into (created if missing).")
        var output: String = "faultline-export"

        @OptionGroup var reportInputs: ReportInputOptions

        func run() async throws {
            let reports = try reportInputs.load()
            do { try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) }
            catch { ReportCommand.stderr("faultline: cannot create \(output): \((error as NSError).localizedDescription)"); throw ExitCode(73) }
            var files = 0
            for (_, report) in reports {
                var out: [(name: String, data: Data)] = []
                switch format {
                case .sentry:
                    // One envelope per event: a leak report's groups are events of their own.
                    for item in ExportItem.items(of: report) { out.append(("\(item.id).envelope", try SentryEnvelope.make(item))) }
                case .otlpJSON:
                    out.append(("\(report.id).otlp.json",
                                try JSONSerialization.data(withJSONObject: OTLPLogs.logsData([report]), options: [.sortedKeys, .withoutEscapingSlashes])))
                }
                for (name, data) in out {
                    let path = (output as NSString).appendingPathComponent(name)
                    do { try data.write(to: URL(fileURLWithPath: path), options: .atomic) }
                    catch { ReportCommand.stderr("faultline: cannot write \(path): \((error as NSError).localizedDescription)"); throw ExitCode(73) }
                }
                files += out.count
            }
            let events = files != reports.count ? " (\(files) files: a leak report is one per leak group)" : ""
            print("\(reports.count) report(s) exported as \(format.rawValue) into \(OneLine.escaped(output))\(events)")
        }
    }
}
