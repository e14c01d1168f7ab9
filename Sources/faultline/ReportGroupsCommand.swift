import ArgumentParser
import Faultline
import Foundation

extension ReportCommand {
    /// `faultline report groups`.
    struct Groups: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Group every report under the folders by signature.",
            discussion: """
                Reads every report under each DIR at any depth (many runs, many machines' artifacts \
                copied together) and prints one line per signature: kind, count, first and last seen, \
                processes, machines, and one example report. Each DIR keeps an index \
                (.faultline-groups/index) so unchanged reports are not read again; a report changed \
                or added since is always read. docs/export.md says how signatures are made.
                """)

        @Argument(help: "Report folders (default ./faultline-reports).")
        var directories: [String] = []

        @Flag(help: "Print the groups as JSON.")
        var json = false

        @Option(help: "Only reports started at or after TIME: 2026-11-21, 2026-11-21T10:00:00Z, or an age (30m, 24h, 7d).")
        var since: String?

        @Flag(help: "Split each signature's group by the phase its reports were in (faultline_set_phase).")
        var byPhase = false

        @OptionGroup var symbolication: SymbolicateOption

        func run() async throws {
            var grouper = ReportGrouper(symbolicator: symbolication.symbolicate ? Symbolicator() : nil)
            grouper.byPhase = byPhase
            if let since {
                do throws(SinceTime.ParseError) { grouper.sinceUnixMs = try SinceTime.parse(since) }
                catch { ReportCommand.stderr("faultline: \(error)"); throw ExitCode(64) }
            }
            let dirs = directories.isEmpty ? [RunReportDirectory.defaultParent] : directories
            let outcome: ReportGrouper.Outcome
            do { outcome = try grouper.group(dirs) }
            catch { ReportCommand.stderr("faultline: \(error)"); throw ExitCode(ReportCommand.notFoundStatus) }
            for s in outcome.skipped { ReportCommand.stderr("faultline: skipped \(s)") }
            for w in outcome.indexWarnings { ReportCommand.stderr("faultline: warning: \(w)") }
            if json {
                let data = try JSONEncoderFactory.pretty().encode(outcome.groups)
                FileHandle.standardOutput.write(TerminalSafeJSON.escapingControls(data) + Data("\n".utf8))
                return
            }
            var rows = [["SIGNATURE", "KIND"] + (byPhase ? ["PHASE"] : []) + ["COUNT", "FIRST SEEN", "LAST SEEN", "PROCESSES", "MACHINES", "EXAMPLE"]]
            for g in outcome.groups {
                rows.append(([g.signature, g.kind] + (byPhase ? [g.phase ?? "-"] : [])
                             + [String(g.count), g.firstSeen, g.lastSeen, g.processes.joined(separator: ","),
                                g.machines.joined(separator: ","), g.example]).map(OneLine.escaped))
                rows.append(["  " + OneLine.escaped(g.text)])
            }
            let columns = rows[0].count
            let widths = (0..<columns).map { c in rows.filter { $0.count == columns }.map { $0[c].count }.max() ?? 0 }
            for row in rows {
                guard row.count == columns else { print(row[0]); continue }
                print((0..<columns).map { c in c == columns - 1 ? row[c] : row[c].padding(toLength: widths[c], withPad: " ", startingAt: 0) }
                    .joined(separator: "  "))
            }
            let total = outcome.groups.reduce(0) { $0 + $1.count }
            print("\(outcome.groups.count) group(s) of \(total) report(s) in \(dirs.map(OneLine.escaped).joined(separator: ", "))")
        }
    }
}
