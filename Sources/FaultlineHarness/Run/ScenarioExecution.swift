import Faultline
import Foundation

/// One run of one scenario: checks requirements, prepares the artifacts
/// folder, spawns the victim with the agent injected, waits (killing its
/// process group at the timeout), and judges what it left.
struct ScenarioExecution {
    let scenario: Scenario
    /// 1-based repeat number, nil without `--repeat`.
    let repeatIndex: Int?
    /// 1-based rerun number (`--reruns`), nil for the first run.
    var rerunIndex: Int? = nil
    let options: RunOptions
    /// This `faultline run`'s folder under the artifacts root.
    let runDirectory: String
    /// Answers `requires:` entries (cached across runs).
    let requirements: RequirementCache

    /// The folder name: the scenario name, plus `-N` for repeats and `-rerun-K` for reruns.
    var folderName: String {
        (repeatIndex.map { "\(scenario.name)-\($0)" } ?? scenario.name) + (rerunIndex.map { "-rerun-\($0)" } ?? "")
    }

    /// Runs the scenario once, in its phases: skip or make the folder, find
    /// the victim and the libraries to inject, write `command`, spawn and
    /// wait, judge what it left. A phase that cannot go on stops the run
    /// with the failure saying why.
    func run() -> RunRecord {
        let clock = ContinuousClock()
        let start = clock.now
        var record = RunRecord(
            scenario: scenario.name, repeatIndex: repeatIndex, verdict: .pass, durationSeconds: 0, exit: nil,
            failures: [], skipReason: nil, artifacts: nil, command: [], pid: nil, reports: [], memoryLimit: nil,
            rerunIndex: rerunIndex)
        func seconds() -> Double {
            let d = clock.now - start
            return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        }

        let folder = (runDirectory as NSString).appendingPathComponent(folderName)
        let reportDirectory = folder + "/reports"
        if let reason = skipReason() { return skipped(record, reason: reason, folder: folder, seconds()) }
        do throws(RunStopped) {
            if let why = ArtifactFiles.makeFolder(folder) ?? ArtifactFiles.makeFolder(reportDirectory) {
                throw RunStopped("artifacts", expected: "a new folder \(folder)", found: why)
            }
            record.artifacts = folder
            let executable = try victimPath()
            let (environment, added) = VictimEnvironment.make(
                scenario: scenario, base: ProcessInfo.processInfo.environment, reportDirectory: reportDirectory,
                preload: try preloadLibraries())
            let session = try memoryLimitSession()
            var argv = [executable] + scenario.args
            if let session { argv = session.wrap(command: argv) }
            record.command = argv
            try writeCommand(argv, added: added, in: folder)
            let exit = try spawnAndWait(argv, environment: environment, in: folder, session: session, into: &record)
            judge(exit, folder: folder, reportDirectory: reportDirectory, into: &record)
            return finish(record, failure: nil, seconds())
        } catch {
            return finish(record, failure: error.failure, seconds())
        }
    }

    /// Why a phase stopped the run.
    private struct RunStopped: Error {
        let failure: CheckFailure
        init(_ check: String, expected: String, found: String) {
            failure = CheckFailure(check, expected: expected, found: found)
        }
    }

    /// A skipped run keeps a folder with only result.json saying why.
    private func skipped(_ record: RunRecord, reason: String, folder: String, _ duration: Double) -> RunRecord {
        var r = record
        r.verdict = .skip
        r.skipReason = reason
        r.durationSeconds = duration
        if ArtifactFiles.makeFolder(folder) == nil, let data = try? JSONEncoderFactory.pretty().encode(r) {
            r.artifacts = folder
            _ = ArtifactFiles.write(data, to: folder + "/result.json")
        }
        return r
    }

    /// The victim's executable in the build directory.
    private func victimPath() throws(RunStopped) -> String {
        switch options.buildDirectory.resolveVictim(scenario.victim) {
        case .failure(let e): throw RunStopped("victim", expected: "a program to run", found: e.message)
        case .success(let path): return path
        }
    }

    /// The agent (and the malloc shim when the scenario needs it) for
    /// LD_PRELOAD; none for a linked scenario or one that injects nothing.
    private func preloadLibraries() throws(RunStopped) -> [String] {
        guard scenario.mode == .preload && !scenario.inject.isEmpty else { return [] }
        var names = [BuildDirectory.agentLibrary]
        if scenario.needsMallocShim { names.append(BuildDirectory.mallocShimLibrary) }
        return try names.map { name throws(RunStopped) in
            guard let lib = options.buildDirectory.product(name) else {
                let product = name.dropFirst(3).dropLast(3)
                throw RunStopped("inject", expected: "\(name) in \(options.buildDirectory.path)",
                                 found: "it is not built; run `swift build --product \(product)` or pass --build-dir")
            }
            return lib
        }
    }

    /// The memory cgroup of a scenario with `memory_limit:`, else nil.
    private func memoryLimitSession() throws(RunStopped) -> (any MemoryLimitSession)? {
        guard let limit = scenario.memoryLimit, let runner = options.memoryLimitRunner else { return nil }
        do {
            return try runner.prepare(limit: limit, label: folderName)
        } catch {
            throw RunStopped("memory_limit", expected: "a memory cgroup of \(Units.describe(bytes: limit))", found: "\(error)")
        }
    }

    /// Writes `command`, the line that reruns the victim by hand. It is the
    /// first file of the run: when it cannot be written (the disk filled up
    /// after faultline run checked it), the victim's output and reports
    /// could not be either, and the verdict would blame the victim.
    private func writeCommand(_ argv: [String], added: [(String, String)], in folder: String) throws(RunStopped) {
        let commandText = "cd \(ShellQuote.quote(folder)) && \(ShellQuote.commandLine(argv, env: added))\n"
        if let why = ArtifactFiles.write(Data(commandText.utf8), to: folder + "/command") {
            throw RunStopped("artifacts", expected: "room to write in \(folder)",
                             found: "\(why); free space or pass another --artifacts (the victim was not run)")
        }
    }

    /// Spawns the victim (into its memory cgroup, if any) and waits for it,
    /// killing its process group at the timeout; records its pid and what
    /// the cgroup saw.
    private func spawnAndWait(_ argv: [String], environment: [String: String], in folder: String,
                              session: (any MemoryLimitSession)?, into record: inout RunRecord) throws(RunStopped) -> VictimExit {
        let request = VictimProcess.Request(
            executable: argv[0], arguments: argv, environment: environment, workingDirectory: folder,
            stdoutPath: folder + "/stdout", stderrPath: folder + "/stderr")
        let child: VictimProcess
        do {
            child = try VictimProcess.spawn(request)
        } catch {
            throw RunStopped("victim", expected: "the victim to start", found: error.description)
        }
        record.pid = child.pid
        var attachFailure: CheckFailure?
        if let session {
            do { try session.attach(pid: child.pid) } catch {
                attachFailure = CheckFailure("memory_limit", expected: "the victim inside its memory cgroup", found: "\(error)")
            }
        }
        let exit = child.wait(timeout: scenario.timeout)
        if let session { record.memoryLimit = session.finish(exit: exit) }
        if let attachFailure { record.failures.append(attachFailure) }
        return exit
    }

    /// Reads what the victim left (exit, output, reports) and checks the
    /// scenario's expectations against it.
    private func judge(_ exit: VictimExit, folder: String, reportDirectory: String, into record: inout RunRecord) {
        record.exit = exit.description
        let reports = (try? ReportStore.list(directory: reportDirectory)) ?? []
        record.reports = reports.map { ($0.path as NSString).lastPathComponent }
        options.reportsRead?(folderName, reports)
        let observation = Observation(
            exit: exit, stdout: Self.read(folder + "/stdout"), stderr: Self.read(folder + "/stderr"), reports: reports,
            pid: record.pid)
        record.failures += options.checker.check(scenario.expect, against: observation)
    }

    /// Unmet requirements, or a memory limit nobody can apply.
    private func skipReason() -> String? {
        for req in scenario.requires {
            if let reason = requirements.check(req, in: options.requirements) { return "requires \(req): \(reason)" }
        }
        if scenario.memoryLimit != nil && options.memoryLimitRunner == nil {
            return "memory limits are not implemented yet"
        }
        return nil
    }

    /// Sets the verdict, writes `result.json`, and deletes the folder of a
    /// passing run unless artifacts are kept (`artifacts` is set only once
    /// this run has made the folder: nothing else is ever deleted).
    private func finish(_ record: RunRecord, failure: CheckFailure?, _ duration: Double) -> RunRecord {
        var r = record
        if let failure { r.failures.append(failure) }
        r.verdict = r.failures.isEmpty ? .pass : .fail
        r.durationSeconds = duration
        guard let folder = r.artifacts else { return r }
        if r.verdict == .pass && !options.keepArtifacts {
            try? FileManager.default.removeItem(atPath: folder)
            r.artifacts = nil
        } else if let data = try? JSONEncoderFactory.pretty().encode(r) {
            _ = ArtifactFiles.write(data, to: folder + "/result.json")
        }
        return r
    }

    /// A file as text (invalid UTF-8 repaired); "" when unreadable.
    static func read(_ path: String) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
}
