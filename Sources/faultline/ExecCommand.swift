import ArgumentParser
import Faultline
import Foundation

/// `faultline exec [options] -- CMD [ARGS…]`: runs CMD with the agent
/// injected (like `valgrind CMD`), then prints the reports it produced and
/// exits with CMD's own status.
struct ExecCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Run a program with the Faultline agent injected, then show the reports it produced.",
        discussion: """
            The agent (libFaultlineAgentPreload.so) and, for the use_after_free and leaks detectors, \
            the malloc shim (libFaultlineMallocShim.so) are taken from the directory of the faultline \
            executable and prepended to LD_PRELOAD. Reports go to --report-dir, by default \
            ./faultline-reports/<cmd>-<YYYYmmdd-HHMMSS>-<pid> (UTC start time; removed when the run wrote \
            no report, kept when processes the program started are still running, which the last line \
            then names: their later reports go there too). SWIFT_BACKTRACE=enable=no is set unless SWIFT_BACKTRACE is already set, so the \
            Swift runtime does not print a second crash report. SIGINT, SIGTERM, SIGHUP and SIGQUIT are forwarded to the program. The exit \
            status is the program's, or 128+N when signal N killed it; with --error-exitcode, a program that exited \
            (rather than being killed) after the run wrote a report gives that status instead, as under valgrind.

            Exit statuses of faultline itself: 64 bad usage (unknown detector, a --memory-limit that \
            is not a size or is below 1M, an --error-exitcode outside 1-255, a --suppressions file that is missing, unreadable or has a bad line), 69 agent library missing or no memory cgroup for \
            --memory-limit, 73 report directory not creatable or writable, 126 program not runnable, \
            127 program not found.
            """)

    @Option(name: .customLong("report-dir"), help: "Directory for the reports (created if missing).")
    var reportDir: String?

    @Option(help: ArgumentHelp(
        "Comma-separated detectors to turn on (default: all but fds, which `all` or `fds` adds; docs/resources.md).",
        discussion: "Valid: \(DetectorSelection.known.joined(separator: ", ")), or all.",
        valueName: "list"))
    var detectors: String?

    @Flag(help: "Do not preload the malloc shim even when use_after_free or leaks is on.")
    var noShim = false

    @Flag(help: "Do not keep a copy of what the program writes to stderr (its tail is then missing from reports); fd 2 is left alone either way.")
    var noCaptureStderr = false

    @Flag(help: "Print the reports without running the symbolizer.")
    var noSymbolicate = false

    @Flag(help: "Print a leak summary after the program exits, and add leaks to --detectors when that is given (without --detectors every detector, the leak check included, is on already; docs/leaks.md).")
    var leaks = false

    @Option(name: .customLong("memory-limit"), help: ArgumentHelp(
        "Run the program in a fresh memory cgroup with this limit (64M, 1G); an OOM kill leaves an oom_kill report.",
        valueName: "size"))
    var memoryLimit: String?

    @Option(help: ArgumentHelp(
        "Suppress the leaks and heap errors this file names (KIND:PATTERN lines, as valgrind's --suppressions; docs/malloc-shim.md). Checked before the program starts; passed on as FAULTLINE_SUPPRESSIONS.",
        valueName: "file"))
    var suppressions: String?

    @Flag(name: .customLong("gen-suppressions"), help: "Print after each leak group and heap error the suppression line that silences it (a `#` comment naming it, then KIND:PATTERN), as valgrind's --gen-suppressions=all; collected into a file and given to --suppressions, the lines silence those reports (docs/leaks.md). Sets FAULTLINE_GEN_SUPPRESSIONS=1.")
    var genSuppressions = false

    @Option(name: .customLong("error-exitcode"), help: ArgumentHelp(
        "Exit with this status (1-255) instead of the program's when it exited and the run wrote a report: a leak, a recovered hang, a write after free the program survived. For CI, as valgrind's --error-exitcode; a program killed by a signal still gives 128+N.",
        valueName: "n"))
    var errorExitcode: String?

    @Option(name: .customLong("log-file"), help: ArgumentHelp(
        "Write Faultline's own lines (the agent's and the malloc shim's in every process, and this command's) to this file instead of stderr, as valgrind's --log-file. Without it they come out on faultline's stderr through a channel of their own, never in the program's output.",
        valueName: "file"))
    var logFile: String?

    @Option(name: .customLong("log-fd"), help: ArgumentHelp(
        "Write Faultline's own lines to this inherited descriptor, as valgrind's --log-fd (e.g. 3>faultline.log).",
        valueName: "n"))
    var logFD: String?

    @Option(name: .customLong("trace-children"), help: ArgumentHelp(
        "yes (default): the programs CMD starts get the agent and the shim too; no: only CMD itself, as valgrind's option.",
        valueName: "yes|no"))
    var traceChildren: String?

    @Option(name: .customLong("trace-children-skip"), help: ArgumentHelp(
        "Comma-separated patterns (* and ?) of executable paths that run without the agent and the shim, as valgrind's option (e.g. '/usr/bin/*,*/libtool').",
        valueName: "patterns"))
    var traceChildrenSkip: String?

    @Option(name: .customLong("leak-check-skip"), help: ArgumentHelp(
        "Comma-separated patterns of executable paths whose exit-time leak check is skipped (they still get crash and heap-error detection); default the system's tools: \(Self.defaultLeakCheckSkip). '' checks every program.",
        valueName: "patterns"))
    var leakCheckSkip: String?

    @Option(name: .customLong("guard"), help: ArgumentHelp(
        "Guard pages from the malloc shim: 'all' puts every block against a PROT_NONE page (an overflow or use after free faults at the instruction; slow, memory-hungry), 'sample:N' one block in N (GWP-ASan's design, cheap). Passed on as FAULTLINE_GUARD (docs/malloc-shim.md).",
        valueName: "all|sample:N"))
    var guardPages: String?

    @Option(name: .customLong("annotate"), help: ArgumentHelp(
        "Attach KEY=VALUE to every report of the run (repeatable), as faultline_annotate does (docs/export.md).",
        valueName: "key=value"))
    var annotations: [String] = []

    @Option(help: ArgumentHelp(
        "Also write the run's reports as one self-contained HTML page to this file (flame graphs, memory timelines, leak and crash views; docs/reports.md).",
        valueName: "file"))
    var html: String?

    @Argument(parsing: .captureForPassthrough, help: "The program and its arguments (after --).")
    var command: [String] = []

    /// Programs outside the user's tree, whose leaks are the system's.
    static let defaultLeakCheckSkip = "/usr/bin/*,/bin/*,/usr/sbin/*,/sbin/*,/usr/libexec/*,/usr/lib/gcc/*"

    /// Exit statuses (sysexits.h).
    static let usageStatus: Int32 = 64, unavailableStatus: Int32 = 69, cantCreateStatus: Int32 = 73

    func run() async throws {
        // Passthrough capture also takes what looks like an option of ours
        // when it comes first.
        if let first = command.first, first != "--", first.hasPrefix("-") {
            if first == "-h" || first == "--help" { throw CleanExit.helpRequest(self) }
            fail("unknown option '\(first)'; see `faultline exec --help` (put -- before a program whose name starts with -)",
                 Self.usageStatus)
        }
        let argv = command.first == "--" ? Array(command.dropFirst()) : command
        guard let program = argv.first else {
            fail("exec needs a program: faultline exec [options] -- CMD [ARGS...]", Self.usageStatus)
        }
        let errorStatus = errorExitcode.map { value -> Int32 in
            guard let n = Int32(value), (1...255).contains(n) else {
                fail("--error-exitcode '\(OneLine.escaped(value))' is not a status from 1 to 255; e.g. --error-exitcode 99", Self.usageStatus)
            }
            return n
        }
        let suppressionsPath = suppressions.map { path -> String in
            do throws(SuppressionsFile.CheckError) {
                return try SuppressionsFile.check(path, currentDirectory: FileManager.default.currentDirectoryPath)
            } catch {
                fail("\(error)", Self.usageStatus)
            }
        }
        var selection: DetectorSelection?
        if let detectors {
            do throws(DetectorSelectionError) { selection = try DetectorSelection(parsing: detectors) } catch {
                fail("\(error)", Self.usageStatus)
            }
        }
        if leaks, let chosen = selection, !chosen.names.contains("leaks"), !chosen.names.contains("all") {
            selection = try? DetectorSelection(parsing: (chosen.names + ["leaks"]).joined(separator: ","))
        }
        if let html { exitUnlessWritable([("--html", html)]) }
        let trace: Bool
        switch traceChildren {
        case nil, "yes": trace = true
        case "no": trace = false
        case let other?: fail("--trace-children '\(OneLine.escaped(other))' is not yes or no; e.g. --trace-children=no", Self.usageStatus)
        }
        if logFile != nil && logFD != nil { fail("--log-file and --log-fd both given; choose one", Self.usageStatus) }
        var logDestination = ToolLogChannel.Destination.relay
        if let logFile { logDestination = .file(logFile) }
        if let logFD {
            guard let n = Int32(logFD), n > 2 else {
                fail("--log-fd '\(OneLine.escaped(logFD))' is not a descriptor above 2; e.g. --log-fd 3 with 3>faultline.log", Self.usageStatus)
            }
            logDestination = .fd(n)
        }
        var environment = ProcessInfo.processInfo.environment
        if let guardPages {
            let n = guardPages.hasPrefix("sample:") ? UInt64(guardPages.dropFirst(7)) : nil
            guard guardPages == "all" || guardPages == "off" || (n.map { (1...(1 << 31)).contains($0) } ?? false) else {
                fail("--guard '\(OneLine.escaped(guardPages))' is not all, off or sample:N (N from 1 to 2147483648); e.g. --guard sample:100", Self.usageStatus)
            }
            environment["FAULTLINE_GUARD"] = guardPages
        }
        let executable: String
        do throws(ChildProcess.LaunchError) { executable = try ChildProcess.resolve(program, path: environment["PATH"]) } catch {
            fail("\(error)", error.status)
        }
        guard let libraryDirectory = AgentInjection.executableDirectory() else {
            fail("cannot find the faultline executable's directory (/proc/self/exe); is /proc mounted?", Self.unavailableStatus)
        }
        var injection = AgentInjection(libraryDirectory: libraryDirectory, detectors: selection, useShim: !noShim,
                                       captureStderr: !noCaptureStderr, reportDirectory: "")
        do throws(AgentInjection.MissingLibrary) { _ = try injection.libraries() } catch {
            fail("\(error)", Self.unavailableStatus)
        }
        let directory: RunReportDirectory
        do throws(RunReportDirectory.SetupError) { directory = try RunReportDirectory(explicit: reportDir) } catch {
            fail("\(error)", Self.cantCreateStatus)
        }
        injection.reportDirectory = directory.path
        injection.suppressions = suppressionsPath
        injection.genSuppressions = genSuppressions
        injection.traceChildren = trace
        injection.traceChildrenSkip = traceChildrenSkip
        injection.leakCheckSkip = leakCheckSkip ?? Self.defaultLeakCheckSkip
        let log: ToolLogChannel
        do throws(ToolLogChannel.SetupError) {
            log = try ToolLogChannel(logDestination, currentDirectory: FileManager.default.currentDirectoryPath)
        } catch {
            _ = directory.finish(command: program, pid: 0)
            fail("\(error)", Self.usageStatus)
        }
        injection.logChannel = log.environmentValue
        var childEnvironment: [String: String]
        do throws(AgentInjection.MissingLibrary) { childEnvironment = try injection.environment(environment) } catch {
            _ = directory.finish(command: program, pid: 0)
            fail("\(error)", Self.unavailableStatus)
        }
        if !annotations.isEmpty {
            do throws(ExecAnnotations.ParseError) { childEnvironment["FAULTLINE_ANNOTATIONS"] = try ExecAnnotations.environmentValue(annotations) }
            catch { _ = directory.finish(command: program, pid: 0); fail("\(error)", Self.usageStatus) }
        }

        // A limit that cannot be set ends faultline; the report directory
        // made for the run must not stay behind.
        let limit = ExecMemoryLimit(memoryLimit, program: program) { _ = directory.finish(command: program, pid: 0) }
        let spawn = limit?.spawnCommand(executable, argv, environment: childEnvironment) ?? (executable, argv, childEnvironment)
        // Said before the run (a server may run for hours) and again at the
        // end, where "0 report(s)" would otherwise read as a clean run.
        let reach = PreloadReach.check(executable, searchPath: environment["PATH"])
        if let warning = PreloadReach.warning(reach) { ReportCommand.stderr("faultline: \(warning)") }
        // The program keeps our stderr; this command's own lines follow the
        // agent's into the log file or descriptor.
        let programStderr = log.ownOutput == 2 ? nil : fcntl(2, F_DUPFD_CLOEXEC, 3)
        if let programStderr, programStderr >= 0 { dup2(log.ownOutput, 2) }
        let pid: pid_t
        // Before the spawn: a SIGTERM between spawn and forwarding would kill
        // us and leave the program running unwatched.
        ChildProcess.armSignalForwarding()
        // File times come from the kernel's coarse clock, a tick behind this one.
        let started = Date().addingTimeInterval(-1)
        // The launch detector's start: the agent's exec -> main -> ready count from here.
        var spawnEnvironment = spawn.2
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        spawnEnvironment["FAULTLINE_LAUNCH_EXEC_NS"] = String(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec))
        do throws(ChildProcess.LaunchError) {
            pid = try ChildProcess.spawn(spawn.0, arguments: spawn.1, environment: spawnEnvironment, stderr: programStderr)
        } catch {
            _ = directory.finish(command: program, pid: 0)
            log.finish()
            fail("\(error)", error.status)
        }
        if let programStderr, programStderr >= 0 { close(programStderr) }
        limit?.attach(pid, reportDirectory: directory.path)
        ChildProcess.forwardSignals(to: pid)
        let termination = ChildProcess.wait(pid)
        limit?.finish(termination)
        log.finish()

        // Processes the program left running (a daemon, a background job)
        // can still write reports after this command has printed and ended.
        let stragglers = ReportDirectoryWriters.stillRunning(directory: directory.path)
        let launch = LaunchRecord.take(directory: directory.path, pid: pid)
        let (finalDirectory, reports) = directory.finish(command: program, pid: pid, othersRunning: !stragglers.isEmpty)
        let page = printReports(reports, in: finalDirectory, programStarted: started)
        let loaded = page.map(\.report)
        if let html {
            let title = "faultline exec " + argv.joined(separator: " ")
            if let why = ReportPage(title: title).write(page, to: html) { exitCannotWrite(why) }
            ReportCommand.stderr("faultline: HTML page of \(page.count) report(s) written to \(html)")
        }
        if leaks { Console.err("\n" + LeakSummary().render(loaded)) }
        if let launch { ReportCommand.stderr("faultline: \(launch.summary)") }
        var unwatched = ""
        if case .staticallyLinked(let path, _) = reach {
            unwatched = "; \(OneLine.escaped(path)) is statically linked, so only its exit status was watched"
        }
        if let finalDirectory {
            ReportCommand.stderr("faultline: \(reports.count) report(s) in \(Self.relative(finalDirectory))\(unwatched)")
        } else {
            // A static program was just named; the agent never reached it.
            let reached = unwatched.isEmpty
            let crashOff = reached && selection.map { !$0.names.contains("crash") } == true
            let death = Self.unreportedDeath(termination, program: reached ? program : "it", crashDetectorOff: crashOff)
            ReportCommand.stderr("faultline: 0 report(s); nothing kept in \(Self.relative(directory.location))\(unwatched)\(death)")
        }
        if let dsn = environment["FAULTLINE_SENTRY_DSN"], !dsn.isEmpty, !reports.isEmpty {
            await ExecAnnotations.upload(reports, dsn: dsn, symbolicate: !noSymbolicate)
        }
        if !stragglers.isEmpty, let finalDirectory {
            let pids = stragglers.prefix(5).map(String.init).joined(separator: ", ") + (stragglers.count > 5 ? ", …" : "")
            let dir = Self.relative(finalDirectory)
            ReportCommand.stderr("faultline: \(stragglers.count) process(es) the program started are still running (pid \(pids)); "
                + "the reports they write go to \(dir) too: `faultline report list \(dir)` shows them")
        }
        throw ExitCode(Self.status(of: termination, reports: reports.count, errorStatus: errorStatus))
    }

    /// For a run with no report: how the program died when a signal killed
    /// it (else ""), so that "0 report(s)" does not read as a clean run;
    /// when the signal is one the crash detector reports and
    /// `crashDetectorOff`, says to select it.
    static func unreportedDeath(_ termination: ChildProcess.Termination, program: String, crashDetectorOff: Bool) -> String {
        guard case .signaled(let sig) = termination else { return "" }
        var note = "; \(OneLine.escaped(program)) was killed by \(SignalNaming.name(sig))"
        if SignalNaming.crashSignals.contains(sig), crashDetectorOff {
            note += " (the crash detector is off: add crash to --detectors to get a report)"
        }
        return note
    }

    /// The program's shell status, or `errorStatus` when it exited (not
    /// killed by a signal, which stays visible as 128+N) and the run wrote
    /// reports.
    static func status(of termination: ChildProcess.Termination, reports: Int, errorStatus: Int32?) -> Int32 {
        if let errorStatus, reports > 0, case .exited = termination { return errorStatus }
        return termination.shellStatus
    }

    /// Prints each report in the order they were written (files that are
    /// not reports last); returns the ones that loaded (symbolicated, but
    /// for repeats). A report whose site (`ReportSite`) an earlier one had
    /// is not printed again: one line per such site at the end counts them.
    /// A perf map file last written before `programStarted` is a leftover
    /// of an earlier process and does not name JIT frames. With `--html`
    /// the repeats are symbolicated too, for the page.
    @discardableResult
    private func printReports(_ paths: [String], in directory: String?, programStarted: Date) -> [ReportPage.Item] {
        var loaded: [ReportPage.Item] = []
        var symbolicator = noSymbolicate ? nil : Symbolicator()
        symbolicator?.earliestProcessStart = programStarted
        let formatter = ReportFormatter()
        let entries = ReportStore.load(paths: paths)
        var firstOfSite: [ReportSite: Int] = [:]
        var signatureOfSite: [ReportSite: ReportSignature] = [:]
        var repeats: [(first: Int, kind: String, count: Int)] = []
        for (n, entry) in entries.enumerated() {
            if case .success(let report) = entry.result, let site = ReportSite(report) {
                if let first = firstOfSite[site] {
                    // Same stacks, same signature: the first one's.
                    if let sig = signatureOfSite[site] { Self.keepSignature(sig, in: entry.path) }
                    if let k = repeats.firstIndex(where: { $0.first == first }) { repeats[k].count += 1 }
                    else { repeats.append((first, report.kind, 1)) }
                    let result = html == nil ? nil : symbolicator?.symbolicateWithWarnings(report)
                    loaded.append(ReportPage.Item(report: result?.report ?? report, warnings: result?.warnings ?? [], path: entry.path))
                    continue
                }
                firstOfSite[site] = n + 1
            }
            ReportCommand.stderr("")
            ReportCommand.stderr("faultline: report \(n + 1) of \(entries.count): \(Self.relative(entry.path))")
            switch entry.result {
            case .success(let report):
                let result = symbolicator?.symbolicateWithWarnings(report) ?? Symbolicator.Result(report: report, warnings: [], tool: nil)
                Console.err(formatter.format(result))
                loaded.append(ReportPage.Item(report: result.report, warnings: result.warnings, path: entry.path))
                if let sig = result.report.signature, symbolicator != nil {
                    Self.keepSignature(sig, in: entry.path)
                    if let site = ReportSite(report) { signatureOfSite[site] = sig }
                }
            case .failure(let error):
                ReportCommand.stderr("faultline: \(error)")
            }
        }
        if !repeats.isEmpty { ReportCommand.stderr("") }
        for r in repeats {
            let list = directory.map { "; `faultline report list \(Self.relative($0))` lists every report" } ?? ""
            ReportCommand.stderr("faultline: \(r.count) later report(s) repeat report \(r.first) (\(r.kind) with the same stacks), not printed\(list)")
        }
        return loaded
    }

    /// Writes the signature into the report file (docs/export.md), or
    /// says in one line why it could not.
    static func keepSignature(_ signature: ReportSignature, in path: String) {
        do throws(SignatureFile.WriteError) { try SignatureFile.add(signature, toReportAt: path) }
        catch { ReportCommand.stderr("faultline: warning: \(error)") }
    }

    private func fail(_ message: String, _ status: Int32) -> Never {
        ReportCommand.stderr("faultline: \(message)")
        Foundation.exit(status)
    }

    /// `path` relative to the current directory when under it.
    static func relative(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        return path.hasPrefix(cwd + "/") ? String(path.dropFirst(cwd.count + 1)) : path
    }
}
