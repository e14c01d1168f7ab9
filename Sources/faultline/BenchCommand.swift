import ArgumentParser
import Faultline
import FaultlineHarness
import Foundation

/// `faultline bench`: what every detector costs on this machine, side by
/// side with glibc alone and the peer tools; console table, results JSON,
/// HTML report, and comparison with an earlier results file.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure what every detector costs, against glibc alone and the peer tools (valgrind, heaptrack, efence, DUMA, ASan).",
        discussion: """
            Sections: \(BenchSuite.sections.joined(separator: ", ")). A FILTER names a section (or a prefix of one), or a metric-name prefix such as crash.capture. \
            Configurations alternate run by run (A B, B A, …) after warm-up runs that are discarded; figures are medians with p10/p90, \
            and ratios are against the baseline measured in the same run. See docs/benchmarks.md.
            `faultline bench detect` is the other half: what each tool catches.
            """,
        subcommands: [BenchDetectCommand.self]
    )

    @Flag(help: "The short run (about 1 minute on 2 cores) instead of the full one (about 5).")
    var quick = false

    @Option(name: .customLong("json"), help: ArgumentHelp("Write the results here (keep it for --compare).", valueName: "file"))
    var jsonPath: String?

    @Option(name: .customLong("html"), help: ArgumentHelp("Write the HTML report here.", valueName: "file"))
    var htmlPath: String?

    @Option(name: .customLong("compare"), help: ArgumentHelp("Print what regressed (and improved) since this results file.", valueName: "old.json"))
    var comparePath: String?

    @Option(help: ArgumentHelp("Relative threshold for --compare: a figure regressed when its median grew by more than this and its p10 passed the old p90.", valueName: "fraction"))
    var threshold: Double = BenchComparison.defaultThreshold

    @Option(name: .customLong("build-dir"), help: ArgumentHelp("Where the bench programs, agent and shim are built (default: next to faultline).", valueName: "dir"))
    var buildDirectory: String?

    @Argument(help: "Run only these sections or metrics.")
    var filters: [String] = []

    func validate() throws {
        if filters.first == BenchDetectCommand.configuration.commandName { return }
        if let buildDirectory, let problem = SuiteLocation.problem(buildDirectory: buildDirectory) { throw ValidationError(problem) }
        let unknown = BenchSuite.unknownFilters(filters)
        if !unknown.isEmpty {
            throw ValidationError("no bench section matches '\(unknown[0])'; sections are \(BenchSuite.sections.joined(separator: ", "))")
        }
        if !(threshold > 0 && threshold < 10) { throw ValidationError("--threshold \(threshold) must be a fraction above 0, e.g. 0.1 for 10 %") }
    }

    /// Writes all of `data` or nothing; exits 73 when it cannot.
    private func write(_ data: Data, to path: String, option: String) {
        if let why = OutputLocation.write(data, to: path) { exitCannotWrite("\(option): \(why); the table above is complete") }
    }

    func run() throws {
        // ArgumentParser gives a command with positional arguments its
        // subcommand's name as the first of them: hand the words after it over.
        if filters.first == BenchDetectCommand.configuration.commandName {
            let argv = CommandLine.arguments
            let rest = argv.firstIndex(of: filters[0]).map { Array(argv[($0 + 1)...]) } ?? []
            var detect = try BenchDetectCommand.parse(rest)
            return try detect.run()
        }
        // Read the old results first: a bad file should fail before a 15-minute run.
        let old = comparePath.map { path in
            do { return try BenchReport.load(path: path) } catch {
                Console.err("faultline: --compare \(error)\n")
                Foundation.exit(65)
            }
        }
        // And an output that cannot be written, before the run rather than after.
        exitUnlessWritable([("--json", jsonPath), ("--html", htmlPath)])
        let build = buildDirectory.map(BuildDirectory.init(path:)) ?? BuildDirectory.ofRunningExecutable()
        let heavy = BenchBuildCheck.librariesLoadingSwiftRuntime(in: build)
        for lib in heavy {
            Console.err("bench: warning: \(lib) loads the Swift runtime (built without scripts/build): every preloaded process pays ~2 ms and ~4 MB more; run scripts/drop-swift-runtime-dependency \(lib)\n")
        }
        let started = Date()
        var machine = BenchMachine.current()
        let stderr = FileHandle.standardError
        let suite = BenchSuite(
            options: BenchOptions(quick: quick, filters: filters, build: build, packageRoot: build.packageRoot()),
            progress: { line in Console.err("bench: \(line)\n") })
        stderr.write(Data("bench: \(quick ? "quick" : "full") run on \(machine.cpus) CPUs (\(machine.cpuModel)), load \(machine.loadAtStart.map { String($0) }.joined(separator: " "))\n".utf8))
        let metrics = suite.run()
        machine.loadAtEnd = BenchMachine.currentLoad()
        let elapsed = Date().timeIntervalSince(started)
        let iso = ISO8601DateFormatter().string(from: started)
        let report = BenchReport(startedAt: iso, elapsedSeconds: elapsed, quick: quick, filters: filters,
                                 build: (build.path.hasSuffix("/release") ? "release" : build.path.hasSuffix("/debug") ? "debug" : build.path)
                                     + (heavy.isEmpty ? "" : " (preload libraries load the Swift runtime)"),
                                 machine: machine, metrics: metrics)
        Console.out(BenchConsole.render(metrics) + "\n")
        if let jsonPath {
            write(try report.jsonData(), to: jsonPath, option: "--json")
            Console.out("results: \(jsonPath)" + "\n")
        }
        if let htmlPath {
            write(Data(BenchHTML.render(report).utf8), to: htmlPath, option: "--html")
            Console.out("HTML report: \(htmlPath)" + "\n")
        }
        if let old, let comparePath {
            let changes = BenchComparison.compare(old: old, new: report, threshold: threshold)
            let regressed = changes.filter { $0.kind == .regressed }
            let skipped = changes.filter { $0.kind == .notCompared }
            Console.out("\ncompared with \(comparePath) (beyond \(String(format: "%.0f", threshold * 100)) % with non-overlapping p10..p90 spreads):" + "\n")
            if regressed.isEmpty && changes.allSatisfy({ $0.kind == .notCompared }) { Console.out("  no figure moved beyond the threshold" + "\n") }
            for c in changes where c.kind != .notCompared { Console.out("  \(c.kind == .regressed ? "REGRESSED" : "improved "): \(c.text)" + "\n") }
            let differently = skipped.filter { $0.config.isEmpty }
            for c in differently { Console.out("  not compared: \(c.text)" + "\n") }
            if skipped.count > differently.count { Console.out("  not compared: \(skipped.count - differently.count) figure(s) with fewer than \(BenchComparison.minimumSamples) samples (too few runs for a spread: peers, and most figures of a --quick run)" + "\n") }
            Console.out("  \(regressed.count) regression(s)" + "\n")
        }
        Console.out(String(format: "\nbench finished in %.1f s (%@ run, %@ build, load %@ at the end)", elapsed, quick ? "quick" : "full", report.build,
                     machine.loadAtEnd.map { String($0) }.joined(separator: " ")) + "\n")
    }
}

/// `faultline bench detect`: every heap, leak, crash and hang victim case
/// that states its bug, under Faultline and each peer tool; the matrix of
/// bug class × tool with the peers bench's cost beside it (docs/benchmarks.md).
struct BenchDetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "What each tool catches: the victims under Faultline, valgrind, ASan/LSan, Electric Fence, DUMA and glibc's checks.",
        discussion: "A FILTER is a substring of a scenario name (as for faultline run). The quick peers bench runs first for the cost row. See docs/benchmarks.md."
    )

    @Option(name: .customLong("json"), help: ArgumentHelp("Write the matrix and every result here.", valueName: "file"))
    var jsonPath: String?

    @Option(name: .customLong("html"), help: ArgumentHelp("Write the HTML page (the matrix, then the peers bench) here.", valueName: "file"))
    var htmlPath: String?

    @Argument(help: "Only the cases whose scenario name contains one of these.")
    var filters: [String] = []

    func run() throws {
        exitUnlessWritable([("--json", jsonPath), ("--html", htmlPath)])
        let build = BuildDirectory.ofRunningExecutable()
        guard let root = build.packageRoot(), let directory = SuiteLocation.scenariosDirectory(nil, build: build) else {
            Console.err("faultline: bench detect needs the package checkout around \(build.path) (the Scenarios folder and the victims' sources)\n")
            throw ExitCode(66)
        }
        let suite = ScenarioSuite.load(directory: directory)
        if let e = suite.errors.first {
            Console.err("\(e)\nfaultline: \(suite.errors.count) bad scenario file(s); nothing was run\n")
            throw ExitCode(2)
        }
        let cases = DetectCase.select(suite.filtered(filters))
        if cases.isEmpty {
            Console.err("faultline: no heap, leak, crash or hang case that states its bug matches \(filters.joined(separator: " or ")); `faultline list` shows the names\n")
            throw ExitCode(64)
        }
        let progress: @Sendable (String) -> Void = { Console.err("bench detect: \($0)\n") }
        let started = Date()
        var machine = BenchMachine.current()
        progress("the quick peers bench, for the cost row")
        let costs = BenchSuite(options: BenchOptions(quick: true, filters: ["peers"], build: build, packageRoot: root), progress: progress).run()
        let tools = DetectTool.withCosts(DetectTool.all(build: build), from: costs)
        progress("\(cases.count) cases x \(tools.count) tools")
        let matrix = DetectMatrixRunner(build: build, packageRoot: root, progress: progress).run(cases, tools: tools, filters: filters)
        machine.loadAtEnd = BenchMachine.currentLoad()
        Console.out(DetectConsole.render(matrix))
        if let jsonPath {
            if let why = OutputLocation.write(try matrix.jsonData(), to: jsonPath) { exitCannotWrite("--json: \(why); the table above is complete") }
            Console.out("results: \(jsonPath)\n")
        }
        if let htmlPath {
            let report = BenchReport(startedAt: ISO8601DateFormatter().string(from: started), elapsedSeconds: Date().timeIntervalSince(started),
                                     quick: true, filters: ["peers"], build: build.path, machine: machine, metrics: costs)
            if let why = OutputLocation.write(Data(BenchHTML.render(report, detect: matrix).utf8), to: htmlPath) {
                exitCannotWrite("--html: \(why); the table above is complete")
            }
            Console.out("HTML report: \(htmlPath)\n")
        }
        Console.out(String(format: "\nbench detect finished in %.0f s\n", Date().timeIntervalSince(started)))
    }
}
