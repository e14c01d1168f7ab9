import ArgumentParser
import Faultline
import FaultlineHarness
import Foundation

/// `faultline list [FILTER…]`: the scenarios, each with its victim command,
/// what it injects and what it expects.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the scenarios (those whose name contains a FILTER): victim, injection, expectation."
    )

    @Argument(help: "Show only scenarios whose name contains one of these texts.")
    var filters: [String] = []

    @Option(name: .customLong("scenarios"), help: ArgumentHelp("Scenario directory (default: ./Scenarios, else the package's).", valueName: "dir"))
    var scenariosDirectory: String?

    @Option(name: .customLong("build-dir"), help: ArgumentHelp("Build directory used to find the package's Scenarios.", valueName: "dir"))
    var buildDirectory: String?

    func validate() throws {
        if let buildDirectory, let problem = SuiteLocation.problem(buildDirectory: buildDirectory) { throw ValidationError(problem) }
        if let scenariosDirectory, let problem = RunCommand.scenariosProblem(scenariosDirectory) { throw ValidationError(problem) }
    }

    func run() throws {
        let build = SuiteLocation.buildDirectory(buildDirectory)
        guard let directory = SuiteLocation.scenariosDirectory(scenariosDirectory, build: build) else {
            Console.err("faultline: \(OneLine.escaped("no Scenarios directory here or in the package above \(build.path)")); pass --scenarios DIR\n")
            throw ExitCode(2)
        }
        let suite = ScenarioSuite.load(directory: directory)
        for e in suite.errors { Console.err("\(e)\n") }
        let selected = suite.filtered(filters)
        // Bad files and nothing good (a missing directory): the errors say it all.
        if selected.isEmpty && !suite.errors.isEmpty { throw ExitCode(2) }
        Console.out(ScenarioListing.render(selected))
        Console.out("\(selected.count) scenario(s)" + "\n")
        if !suite.errors.isEmpty { throw ExitCode(2) }
    }
}
