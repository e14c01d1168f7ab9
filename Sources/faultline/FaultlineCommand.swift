import ArgumentParser
import Faultline
import Foundation

/// The `faultline` command: runs the scenario suite, runs programs under the
/// agent, and shows reports.
@main
struct FaultlineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "faultline",
        abstract: "Detect and report crashes, exceptions, hangs, leaks, OOM kills and memory errors.",
        discussion: """
            faultline run                 run the whole scenario suite
            faultline exec -- ./prog      run a program with every detector injected
            faultline report list [DIR]   list reports; `report show ID` shows one
            faultline doctor              what this machine supports (cgroups, unwinder, …)
            """,
        subcommands: [
            RunCommand.self, ListCommand.self, ExecCommand.self, ReportCommand.self, DoctorCommand.self, CGroupExecCommand.self, BenchCommand.self,
            ResultsCommand.self,
        ]
    )

    /// ArgumentParser's `main`, except that a bad option or value is one
    /// line (`faultline: MESSAGE (see 'faultline run --help')`, exit 64)
    /// instead of the error, a help line, the usage text and a pointer to
    /// --help on four lines.
    static func main() async {
        // A reader that goes away (`| head`) ends our output, not us.
        Console.ignoreBrokenPipes()
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exitWithOneLine(error)
        }
    }

    /// Help requests and bare exit codes as ArgumentParser ends them; every
    /// other error as one `faultline:` line on stderr.
    private static func exitWithOneLine(_ error: Error) -> Never {
        let code = exitCode(for: error)
        let text = message(for: error).trimmingCharacters(in: .whitespacesAndNewlines)
        guard code != .success, !text.isEmpty else { exit(withError: error) }
        var line = "faultline: " + OneLine.escaped(text)
        // ArgumentParser's usage text ends "See 'faultline run --help' for more information."
        let full = fullMessage(for: error, columns: 10_000)
        if code == .validationFailure, let see = full.range(of: "See '"),
           let end = full[see.upperBound...].firstIndex(of: "'") {
            line += " (see '\(full[see.upperBound..<end])')"
        }
        Console.err(line + "\n")
        Foundation.exit(code.rawValue)
    }
}
