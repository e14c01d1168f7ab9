import ArgumentParser
import Faultline
import Foundation

/// `faultline report`: list the reports in a directory, show one.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "List reports and show one, symbolicated.",
        discussion: """
            faultline report list [DIR]     the reports in DIR (./faultline-reports)
            faultline report show FILE|ID   one report, symbolicated (or --json)
            faultline report groups [DIR...]  reports grouped by signature
            faultline report export --format sentry|otlp-json FILE|DIR...
            faultline report upload --dsn DSN | --otlp URL FILE|DIR...
            faultline report signature-rules  the built-in signature rules
            faultline report html [DIR|FILE...] [-o FILE]   one HTML page of the reports
            """,
        subcommands: [List.self, Show.self, Groups.self, Export.self, Upload.self, SignatureRulesCommand.self, HTML.self],
        defaultSubcommand: List.self
    )

    /// Exit status for a report file that cannot be read as a report.
    static let badReportStatus: Int32 = 65
    /// Exit status for a report or directory that does not exist.
    static let notFoundStatus: Int32 = 66

    /// Writes `line` and a newline to stderr, one line whatever the paths
    /// and names it quotes hold (`OneLine.escaped`: a report directory
    /// named with a newline split `faultline: N report(s) in …` in two, and
    /// an escape sequence in it reached the terminal).
    static func stderr(_ line: String) {
        Console.err(OneLine.escaped(line) + "\n")
    }

    /// `faultline report list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a table of the reports in a directory and the run directories inside it.",
            discussion: "Files that are not readable reports are listed on stderr, one line each.")

        @Argument(help: "Report directory.")
        var directory: String = RunReportDirectory.defaultParent

        func run() async throws {
            let entries: [ReportStore.Entry]
            do {
                entries = try ReportStore.list(directory: directory, includingSubdirectories: true)
            } catch {
                ReportCommand.stderr("faultline: cannot read report directory \(directory): \(Self.reason(error)); run `faultline exec -- CMD` first or pass DIR")
                throw ExitCode(ReportCommand.notFoundStatus)
            }
            let reports = entries.compactMap(\.report)
            for e in entries { if case .failure(let err) = e.result { ReportCommand.stderr("faultline: skipped \(err)") } }
            guard !reports.isEmpty else {
                Console.out("no reports in \(OneLine.escaped(directory))" + "\n")
                return
            }
            var rows = [["ID", "TIME (UTC)", "KIND", "PROCESS", "SUMMARY"]]
            for r in reports {
                let process = "\(r.process.name ?? "?")[\(r.process.pid)]"
                // Names and summaries come from the program (its name, a
                // fatal error message): escaped, so a row stays one row.
                rows.append([r.id, ReportSummary.shortTime(r), r.kind, process, ReportSummary.oneLine(r)].map(OneLine.escaped))
            }
            let widths = (0..<4).map { c in rows.map { $0[c].count }.max() ?? 0 }
            for row in rows {
                let cells = (0..<4).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) } + [row[4]]
                Console.out(cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n")
            }
            let bad = entries.count - reports.count
            Console.out("\(reports.count) report(s) in \(OneLine.escaped(directory))" + (bad > 0 ? ", \(bad) unreadable file(s) skipped" : "") + "\n")
        }

        static func reason(_ error: Error) -> String {
            let ns = error as NSError
            if let posix = ns.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
                return String(cString: strerror(Int32(posix.code)))
            }
            if ns.domain == NSCocoaErrorDomain && (ns.code == NSFileReadNoSuchFileError || ns.code == NSFileNoSuchFileError) {
                return "no such directory"
            }
            return ns.localizedDescription
        }
    }

    /// `faultline report show`.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show one report, symbolicated.",
            discussion: """
                FILE is a report file; ID is a report id or a prefix of one (as few hex digits as \
                make it unique), looked up in --dir and the run directories inside it.
                """)

        @Argument(help: "A report file, or a report id or id prefix.")
        var report: String

        @Option(help: "Directory to look ids up in.")
        var dir: String = RunReportDirectory.defaultParent

        @Flag(help: "Print the symbolicated report as JSON (the report with `symbol` filled in) instead of text.")
        var json = false

        @OptionGroup var symbolication: SymbolicateOption

        @OptionGroup var signature: SignatureRulesOption

        func run() async throws {
            let report = try loadReport()
            var result = Symbolicator.Result(report: report, warnings: [], tool: nil)
            var symbolicator = Symbolicator()
            symbolicator.signatureRules = try signature.rules()
            if symbolication.symbolicate { result = symbolicator.symbolicateWithWarnings(report) }
            if json {
                for w in result.warnings { ReportCommand.stderr("faultline: warning: \(w)") }
                let data = try JSONEncoderFactory.pretty().encode(result.report)
                Console.write(TerminalSafeJSON.escapingControls(data) + Data("\n".utf8), to: 1)
            } else {
                Console.out(ReportFormatter().format(result))
            }
        }

        private func loadReport() throws -> Report {
            var isDir: ObjCBool = false
            let path: String
            if FileManager.default.fileExists(atPath: report, isDirectory: &isDir) {
                guard !isDir.boolValue else {
                    ReportCommand.stderr("faultline: \(report) is a directory; use `faultline report list \(report)`, or give a report file or id")
                    throw ExitCode(ReportCommand.notFoundStatus)
                }
                path = report
            } else {
                let entry: ReportStore.Entry
                do throws(ReportLookupError) {
                    entry = try ReportStore.find(id: report, in: dir)
                } catch {
                    ReportCommand.stderr("faultline: \(error)")
                    throw ExitCode(ReportCommand.notFoundStatus)
                }
                switch entry.result {
                case .success(let r): return r
                case .failure(let e):
                    ReportCommand.stderr("faultline: \(e)")
                    throw ExitCode(ReportCommand.badReportStatus)
                }
            }
            do throws(ReportLoadError) {
                return try ReportStore.load(path: path)
            } catch {
                ReportCommand.stderr("faultline: \(error)")
                throw ExitCode(ReportCommand.badReportStatus)
            }
        }
    }
}
