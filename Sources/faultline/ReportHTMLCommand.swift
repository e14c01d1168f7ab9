import ArgumentParser
import Faultline
import Foundation

extension ReportCommand {
    /// `faultline report html [DIR|FILE…] [-o FILE]`.
    struct HTML: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "html",
            abstract: "Write one self-contained HTML page of reports: flame graphs, memory timelines, leak and crash views.",
            discussion: """
                Each DIR is read as `report list` reads it (its run directories included); each FILE is one \
                report. The page (inline CSS and SVG, no script, nothing fetched) opens on the reports' groups \
                with their counts. Without -o it goes to stdout. Exit status: 66 when a path does not exist, 73 \
                when -o cannot be written; files that are not reports are listed on stderr and on the page.
                """)

        @Argument(help: "Report directories or files (default ./faultline-reports).")
        var paths: [String] = []

        @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Write the page to this file.", valueName: "file"))
        var output: String?

        @Option(help: "The page's title (default: the paths).")
        var title: String?

        @Flag(help: "Do not run the symbolizer; frames show image + offset.")
        var noSymbolicate = false

        func run() async throws {
            if let output { exitUnlessWritable([("-o", output)]) }
            let sources = paths.isEmpty ? [RunReportDirectory.defaultParent] : paths
            var entries: [ReportStore.Entry] = []
            for path in sources {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                    ReportCommand.stderr("faultline: \(path): no such file or directory; give report files or directories (`faultline exec -- CMD` makes them)")
                    throw ExitCode(ReportCommand.notFoundStatus)
                }
                if isDirectory.boolValue {
                    do {
                        entries += try ReportStore.list(directory: path, includingSubdirectories: true)
                    } catch {
                        ReportCommand.stderr("faultline: cannot read report directory \(path): \(ReportCommand.List.reason(error))")
                        throw ExitCode(ReportCommand.notFoundStatus)
                    }
                } else {
                    entries += ReportStore.load(paths: [path])
                }
            }
            let (items, skipped) = ReportPage.items(entries, symbolicator: noSymbolicate ? nil : Symbolicator())
            for line in skipped { ReportCommand.stderr("faultline: skipped \(line)") }
            let page = ReportPage(title: title ?? "Faultline reports: " + sources.joined(separator: " "))
            guard let output else {
                FileHandle.standardOutput.write(Data(page.render(items, skipped: skipped).utf8))
                return
            }
            if let why = page.write(items, skipped: skipped, to: output) { exitCannotWrite(why) }
            ReportCommand.stderr("faultline: \(items.count) report(s) written to \(output)")
        }
    }
}
