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

        let fm = FileManager.default
        let folder = (runDirectory as NSString).appendingPathComponent(folderName)
        let reportDirectory = folder + "/reports"
        if let reason = skipReason() {
            // A skipped run keeps a folder with only result.json saying why.
            record.verdict = .skip
            record.skipReason = reason
            record.durationSeconds = seconds()
            if ArtifactFiles.makeFolder(folder) == nil, let data = try? JSONEncoderFactory.pretty().encode(record) {
                record.artifacts = folder
                _ = ArtifactFiles.write(data, to: folder + "/result.json")
            }
            return record
        }
        if let why = ArtifactFiles.makeFolder(folder) ?? ArtifactFiles.makeFolder(reportDirectory) {
            return finish(record, failure: CheckFailure("artifacts", expected: "a new folder \(folder)", found: why), seconds())
        }
        record.artifacts = folder

        let executable: String
        switch options.buildDirectory.resolveVictim(scenario.victim) {
        case .failure(let e): return finish(record, failure: CheckFailure("victim", expected: "a program to run", found: e.message), seconds())
        case .success(let path): executable = path
        }
        var preload: [String] = []
        if scenario.mode == .preload && !scenario.inject.isEmpty {
            var names = [BuildDirectory.agentLibrary]
            if scenario.needsMallocShim { names.append(BuildDirectory.mallocShimLibrary) }
            for name in names {
                guard let lib = options.buildDirectory.product(name) else {
                    let product = name.dropFirst(3).dropLast(3)
                    return finish(record, failure: CheckFailure("inject", expected: "\(name) in \(options.buildDirectory.path)",
                        found: "it is not built; run `swift build --product \(product)` or pass --build-dir"), seconds())
                }
                preload.append(lib)
            }
        }
        let (environment, added) = VictimEnvironment.make(
            scenario: scenario, base: ProcessInfo.processInfo.environment, reportDirectory: reportDirectory, preload: preload)

        var session: (any MemoryLimitSession)?
        if let limit = scenario.memoryLimit, let runner = options.memoryLimitRunner {
            do {
                session = try runner.prepare(limit: limit, label: folderName)
            } catch {
                return finish(record, failure: CheckFailure("memory_limit", expected: "a memory cgroup of \(Units.describe(bytes: limit))", found: "\(error)"), seconds())
            }
        }
        var argv = [executable] + scenario.args
        if let session { argv = session.wrap(command: argv) }
        record.command = argv
        let commandText = "cd \(ShellQuote.quote(folder)) && \(ShellQuote.commandLine(argv, env: added))\n"
        // The first file of the run: when it cannot be written (the disk
        // filled up after faultline run checked it), the victim's output and
        // reports could not be either, and the verdict would blame the victim.
        if let why = ArtifactFiles.write(Data(commandText.utf8), to: folder + "/command") {
            return finish(record, failure: CheckFailure("artifacts", expected: "room to write in \(folder)",
                found: "\(why); free space or pass another --artifacts (the victim was not run)"), seconds())
        }

        let request = VictimProcess.Request(
            executable: argv[0], arguments: argv, environment: environment, workingDirectory: folder,
            stdoutPath: folder + "/stdout", stderrPath: folder + "/stderr")
        let exit: VictimExit
        do {
            let child = try VictimProcess.spawn(request)
            record.pid = child.pid
            var attachFailure: CheckFailure?
            if let session {
                do { try session.attach(pid: child.pid) } catch {
                    attachFailure = CheckFailure("memory_limit", expected: "the victim inside its memory cgroup", found: "\(error)")
                }
            }
            exit = child.wait(timeout: scenario.timeout)
            if let session { record.memoryLimit = session.finish(exit: exit) }
            if let attachFailure { record.failures.append(attachFailure) }
        } catch {
            return finish(record, failure: CheckFailure("victim", expected: "the victim to start", found: error.description), seconds())
        }
        record.exit = exit.description

        let reports = (try? ReportStore.list(directory: reportDirectory)) ?? []
        record.reports = reports.map { ($0.path as NSString).lastPathComponent }
        options.reportsRead?(folderName, reports)
        let observation = Observation(
            exit: exit, stdout: Self.read(folder + "/stdout"), stderr: Self.read(folder + "/stderr"), reports: reports,
            pid: record.pid)
        record.failures += options.checker.check(scenario.expect, against: observation)
        return finish(record, failure: nil, seconds())
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
