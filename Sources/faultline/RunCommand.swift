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
            73 when --artifacts, --junit, --json or --timings cannot be written, 130 when interrupted. \
            FLAKY, XPASS and NOT RUN fail the run (FLAKY not with --flaky-ok); XFAIL does not. See docs/runner.md.
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

    @OptionGroup var results: ResultsFileOptions

    @Option(help: ArgumentHelp("Run shard I of N (1-based), balanced by --timings; default: the gtest or Bazel shard variables.", valueName: "I/N"))
    var shard: String?

    @Option(help: ArgumentHelp("Recorded durations that balance shards (default: <artifacts>/timings.json).", valueName: "file"))
    var timings: String?

    @Option(help: "Rerun a failed scenario up to N times; passing on a rerun is FLAKY.")
    var reruns: Int = 0

    @Flag(help: "FLAKY scenarios do not fail the run.")
    var flakyOk = false

    @Flag(help: "Run only the scenarios that failed in the previous run (<artifacts>/last-run.json).")
    var lastFailed = false

    @Flag(help: "Run the scenarios that failed in the previous run first.")
    var failedFirst = false

    @Flag(help: "Start the scenarios in a random order (printed as --seed S).")
    var shuffle = false

    @Option(help: "The --shuffle order's seed, to repeat an order.")
    var seed: UInt64?

    @Option(help: ArgumentHelp("Start nothing after this much time (e.g. 90s, 10m, 1h); the rest is NOT RUN.", valueName: "duration"))
    var maxTime: String?

    @Option(help: ArgumentHelp("Also write every report of the run as one self-contained HTML page to this file (docs/reports.md).", valueName: "file"))
    var html: String?

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
        if reruns < 0 || reruns > Self.maximumReruns { throw ValidationError("--reruns must be 0…\(Self.maximumReruns), got \(reruns)") }
        if reruns > 0 && repeatCount > 1 {
            throw ValidationError("--reruns \(reruns) with --repeat \(repeatCount): --repeat measures a pass rate, which reruns would hide; pass one of them")
        }
        if lastFailed && failedFirst { throw ValidationError("--last-failed and --failed-first both choose from the previous run; pass one") }
        if shuffle && failedFirst { throw ValidationError("--shuffle and --failed-first both set the order; pass one") }
        if seed != nil && !shuffle { throw ValidationError("--seed \(seed!) orders a --shuffle run; add --shuffle") }
        if let maxTime, Self.duration(maxTime) == nil {
            throw ValidationError("--max-time '\(maxTime)' is not a duration; write e.g. 90s, 10m, 1.5h or a number of seconds")
        }
        _ = try shardRequested()
    }

    /// The most reruns of one failed run.
    static let maximumReruns = 100

    /// `--shard`, else the gtest or Bazel variables; nil when not sharded.
    func shardRequested() throws -> Shard? {
        if let shard {
            switch Shard.parse(shard) {
            case .success(let s): return s
            case .failure(let e): throw ValidationError(e.description)
            }
        }
        switch Shard.fromEnvironment(ProcessInfo.processInfo.environment) {
        case .success(let s)?: return s
        case .failure(let e)?: throw ValidationError(e.description)
        case nil: return nil
        }
    }

    /// `90s`, `10m`, `1.5h`, `250ms` or a number of seconds → seconds (> 0).
    static func duration(_ text: String) -> Double? {
        let t = text.trimmingCharacters(in: .whitespaces)
        for (suffix, scale) in [("min", 60.0), ("m", 60), ("h", 3600)] where t.hasSuffix(suffix) && !t.hasSuffix("ms") {
            guard let n = Double(t.dropLast(suffix.count)), n.isFinite, n > 0 else { return nil }
            return n * scale
        }
        guard let s = Units.seconds(t), s > 0 else { return nil }
        return s
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
        let selected = try selectedScenarios(build: build)
        exitUnlessOutputsWritable()
        let timingsPath = timings ?? (artifacts as NSString).appendingPathComponent("timings.json")
        let order: RunSelection.Order = shuffle ? .shuffled(seed: seed ?? UInt64.random(in: 0...UInt64(UInt32.max))) : failedFirst ? .failedFirst : .suite
        let shard = try shardRequested()
        let plan: RunSelection.Plan
        do {
            plan = try RunSelection(lastFailed: lastFailed, order: order, shard: shard, timingsPath: timingsPath,
                                    previousRunPath: PreviousRun.path(artifactsRoot: artifacts)).plan(selected)
        } catch {
            fail("\(error)")
        }
        for note in plan.notes { Console.err("faultline: \(OneLine.escaped(note))\n") }

        let collected = html.map { _ in CollectedReports() }
        InterruptHandler.install()
        let progress = ConsoleProgress(total: plan.scenarios.count * repeatCount)
        var result = SuiteRunner(options: runOptions(build: build, collected: collected)).run(plan.scenarios, progress: progress)
        InterruptHandler.parkIfInterrupted()
        progress.done()
        result.suite = plan.suite
        result.shard = shard.flatMap { $0.total > 1 ? $0 : nil }
        if case .shuffled(let s) = order { result.seed = s }
        let document = ResultsDocument(result)
        Console.out(ConsoleSummary.render(document, repeatCount: repeatCount))
        try writeOutputs(document, of: result, timingsPath: timingsPath, collected: collected)
        if result.hasFailures(flakyOK: flakyOk) { throw ExitCode(1) }
    }

    /// The suite's scenarios the filters select; exits 2 for bad scenario
    /// files, a missing directory or a selection of none.
    private func selectedScenarios(build: BuildDirectory) throws -> [Scenario] {
        guard let directory = SuiteLocation.scenariosDirectory(scenariosDirectory, build: build) else {
            fail("no Scenarios directory here or in the package above \(build.path); pass --scenarios DIR")
        }
        let suite = ScenarioSuite.load(directory: directory)
        if !suite.errors.isEmpty {
            for e in suite.errors { Console.err("\(e)\n") }
            Console.err("faultline: \(suite.errors.count) bad scenario file(s); nothing was run\n")
            throw ExitCode(2)
        }
        let filtered = suite.filtered(filters)
        if filtered.isEmpty {
            fail(filters.isEmpty
                ? "no scenarios in \(directory); add *.yaml files (docs/scenarios.md) or pass --scenarios DIR"
                : "no scenario name contains \(filters.joined(separator: " or ")); `faultline list` shows the names")
        }
        return filtered
    }

    /// Before anything runs: a path that cannot be written is one line now
    /// (exit 73), not a failure of every scenario or an error after the
    /// whole suite.
    private func exitUnlessOutputsWritable() {
        exitUnlessWritable(results.files + [("--timings", timings), ("--html", html)])
        if let why = OutputLocation.problem(folder: artifacts) { exitCannotWrite("\(why); pass another --artifacts") }
        let shardStatus = ProcessInfo.processInfo.environment["TEST_SHARD_STATUS_FILE"]
        if let shardStatus, let why = Self.touch(shardStatus) { exitCannotWrite("\(why); Bazel's TEST_SHARD_STATUS_FILE must be writable") }
    }

    /// The runner's options from the command line; `collected` gathers
    /// every run's reports for --html.
    private func runOptions(build: BuildDirectory, collected: CollectedReports?) -> RunOptions {
        var options = RunOptions(buildDirectory: build, artifactsRoot: artifacts, repeatCount: repeatCount, keepArtifacts: keepArtifacts)
        if let jobs { options.jobs = jobs }
        options.reruns = reruns
        options.maxTime = maxTime.flatMap(Self.duration)
        options.memoryLimitRunner = CGroupMemoryLimitRunner()
        if let collected { options.reportsRead = { run, entries in collected.add(run, entries) } }
        return options
    }

    /// After the table: --junit and --json, the previous-run record, the
    /// timings (unsharded runs only) and the --html page.
    private func writeOutputs(_ document: ResultsDocument, of result: SuiteResult, timingsPath: String,
                              collected: CollectedReports?) throws {
        try results.write(document)
        if let why = PreviousRun.record(document, artifactsRoot: artifacts) {
            exitCannotWrite("\(why); --last-failed and --failed-first will not see this run")
        }
        // A sharded run leaves the timings alone: the other shards of the
        // same matrix must compute the same split from the same file.
        if result.shard == nil, let why = ScenarioTimings.update(timingsPath, with: .measured(document)) {
            exitCannotWrite("\(why); shards will not be balanced by this run's times")
        }
        if let html, let collected {
            let (items, skipped) = ReportPage.items(collected.entries(), symbolicator: Symbolicator())
            let page = ReportPage(title: "faultline run " + filters.joined(separator: " ") + " (\(result.startedAt))")
            ResultsFileOptions.write(Data(page.render(items, skipped: skipped).utf8), to: html)
        }
    }

    /// Creates `path` or updates its time, as Bazel asks of a runner that
    /// shards (`touch`). Nil when done.
    static func touch(_ path: String) -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return "cannot touch \(path): \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        return futimens(fd, nil) == 0 ? nil : "cannot touch \(path): \(String(cString: strerror(errno)))"
    }

    /// Prints `faultline: message` and exits 2 (bad suite or selection, as opposed
    /// to 1 for failing scenarios).
    private func fail(_ message: String) -> Never {
        Console.err("faultline: \(OneLine.escaped(message))\n")
        Foundation.exit(2)
    }
}

/// The report files of every run of `faultline run --html`, gathered from
/// the worker threads.
final class CollectedReports: @unchecked Sendable {
    private let lock = NSLock()
    private var all: [(run: String, entries: [ReportStore.Entry])] = []

    /// Keeps `entries`, the reports of the run `run`.
    func add(_ run: String, _ entries: [ReportStore.Entry]) {
        lock.lock()
        all.append((run, entries))
        lock.unlock()
    }

    /// Every run's files, runs by name.
    func entries() -> [ReportStore.Entry] {
        lock.lock()
        defer { lock.unlock() }
        return all.sorted { $0.run < $1.run }.flatMap(\.entries)
    }
}
