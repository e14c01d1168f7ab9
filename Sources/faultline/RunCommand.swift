import ArgumentParser
import Faultline
import FaultlineHarness
import Foundation

/// `faultline run [FILTER…]`: runs the scenario suite and says, for every
/// failure, what was expected and what was found.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the scenario suite, or the scenarios whose name contains a FILTER.",
        discussion: """
            Each run gets a folder .faultline-artifacts/<time>/<scenario>/ with stdout, stderr, \
            command, reports/ and result.json; it is kept when the scenario fails or is skipped.

            Exit status: 0 when no scenario failed, 1 when some did, 2 for bad scenario files or \
            no matching scenario, 64 for bad options (a --scenarios or --build-dir that is not a folder), \
            73 when --artifacts, --junit or --json cannot be written, 130 when interrupted. See docs/runner.md.
            """
    )

    @Argument(help: "Run only scenarios whose name contains one of these texts.")
    var filters: [String] = []

    @Option(name: .customLong("scenarios"), help: ArgumentHelp("Scenario directory (default: ./Scenarios, else the package's).", valueName: "dir"))
    var scenariosDirectory: String?

    @Option(name: .customLong("build-dir"), help: ArgumentHelp("Where victims and agent libraries are built (default: next to this faultline).", valueName: "dir"))
    var buildDirectory: String?

    @Option(name: [.short, .long], help: "Scenarios run at the same time (default: number of cores).")
    var jobs: Int?

    @Option(name: .customLong("repeat"), help: "Run each scenario N times and report its pass rate.")
    var repeatCount: Int = 1

    @Flag(help: "Keep the artifacts folders of passing runs too.")
    var keepArtifacts = false

    @Option(help: ArgumentHelp("Parent folder of the per-run artifacts folders.", valueName: "dir"))
    var artifacts: String = ".faultline-artifacts"

    @Option(help: ArgumentHelp("Also write JUnit XML results to this file.", valueName: "file"))
    var junit: String?

    @Option(help: ArgumentHelp("Also write machine-readable JSON results to this file.", valueName: "file"))
    var json: String?

    func validate() throws {
        if let buildDirectory, let problem = SuiteLocation.problem(buildDirectory: buildDirectory) { throw ValidationError(problem) }
        if let scenariosDirectory, let problem = Self.scenariosProblem(scenariosDirectory) { throw ValidationError(problem) }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1, got \(jobs)") }
        if repeatCount < 1 { throw ValidationError("--repeat must be at least 1, got \(repeatCount)") }
        // Every run gets a slot up front: --repeat 999999999999 died in a
        // 24 TB allocation (Swift fatal error and a crash dump).
        if repeatCount > Self.maximumRepeat {
            throw ValidationError("--repeat must be at most \(Self.maximumRepeat), got \(repeatCount)")
        }
    }

    /// Why a `--scenarios` value cannot be the scenario directory, in one
    /// line (nil when it is a folder); a bad option value (exit 64) like a
    /// bad `--build-dir`. Checked before loading: the loader's own error
    /// (`/missing:1: no such scenario directory`) and the count after it
    /// made two lines, exit 2, that named line 1 of a file that is not.
    static func scenariosProblem(_ path: String) -> String? {
        let what = "pass the folder that holds the scenario files (*.yaml; docs/scenarios.md), e.g. --scenarios Scenarios"
        var isDirectory: ObjCBool = false
        if path.isEmpty { return "--scenarios '' names no folder; \(what)" }
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return "--scenarios \(path): no such folder; \(what)"
        }
        return isDirectory.boolValue ? nil : "--scenarios \(path) is not a folder; \(what)"
    }

    /// The largest `--repeat`: more than a day of the quickest scenario.
    static let maximumRepeat = 100_000

    func run() throws {
        let build = SuiteLocation.buildDirectory(buildDirectory)
        guard let directory = SuiteLocation.scenariosDirectory(scenariosDirectory, build: build) else {
            fail("no Scenarios directory here or in the package above \(build.path); pass --scenarios DIR")
        }
        let suite = ScenarioSuite.load(directory: directory)
        if !suite.errors.isEmpty {
            for e in suite.errors { FileHandle.standardError.write(Data("\(e)\n".utf8)) }
            FileHandle.standardError.write(Data("faultline: \(suite.errors.count) bad scenario file(s); nothing was run\n".utf8))
            throw ExitCode(2)
        }
        let selected = suite.filtered(filters)
        if selected.isEmpty {
            fail(filters.isEmpty
                ? "no scenarios in \(directory); add *.yaml files (docs/scenarios.md) or pass --scenarios DIR"
                : "no scenario name contains \(filters.joined(separator: " or ")); `faultline list` shows the names")
        }

        // Before anything runs: a path that cannot be written is one line now,
        // not a failure of every scenario or an error after the whole suite.
        exitUnlessWritable([("--junit", junit), ("--json", json)])
        if let why = OutputLocation.problem(folder: artifacts) { exitCannotWrite("\(why); pass another --artifacts") }

        var options = RunOptions(buildDirectory: build, artifactsRoot: artifacts, repeatCount: repeatCount, keepArtifacts: keepArtifacts)
        if let jobs { options.jobs = jobs }
        options.memoryLimitRunner = CGroupMemoryLimitRunner()
        InterruptHandler.install()
        let progress = ConsoleProgress(total: selected.count * repeatCount)
        let result = SuiteRunner(options: options).run(selected, progress: progress)
        InterruptHandler.parkIfInterrupted()
        progress.done()
        print(ConsoleSummary.render(result, repeatCount: repeatCount), terminator: "")
        if let junit { write(Data(JUnitWriter.render(result).utf8), to: junit) }
        if let json { write(try JSONResultsWriter.render(result), to: json) }
        if result.failed { throw ExitCode(1) }
    }

    /// Prints `faultline: message` and exits 2 (bad suite or selection, as opposed
    /// to 1 for failing scenarios).
    private func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("faultline: \(OneLine.escaped(message))\n".utf8))
        Foundation.exit(2)
    }

    /// Writes all of `data` or nothing; exits 73 when it cannot.
    private func write(_ data: Data, to path: String) {
        if let why = OutputLocation.write(data, to: path) {
            exitCannotWrite("\(why); the results above are complete, only this file is missing")
        }
    }
}
