import Foundation

/// Runs a case's victim under a peer tool, plain (no Faultline), with the
/// scenario's environment (its FAULTLINE_* variables dropped), and reads
/// the tool's own output into verdicts:
/// valgrind's XML file, ASan's log files, and for Electric Fence, DUMA and
/// glibc their abort message plus — when the victim died of a signal — the
/// backtrace of a second run under gdb, stopped at that signal.
struct DetectPeerRun {
    let build: BuildDirectory
    let asan: DetectVictimBuild
    let dwarf4: DetectVictimBuild
    /// A folder of this run's own.
    let directory: String
    /// Victims that hang are stopped at this many seconds (no peer has a hang detector).
    static let hangLimit = 5.0
    /// Every other run's limit (valgrind is 20-80x slower than the victim).
    static let limit = 90.0

    func run(_ c: DetectCase, tool: String) -> DetectResult {
        let executable: String
        let rebuilt = tool == "asan" ? asan : tool == "valgrind" ? dwarf4 : nil
        switch rebuilt?.victim(c.scenario.victim) ?? build.resolveVictim(c.scenario.victim).mapError({ BenchError($0.message) }) {
        case .success(let path): executable = path
        case .failure(let why): return DetectResult(caseName: c.scenario.name, tool: tool, outcome: .failed, note: why.description)
        }
        let dir = "\(directory)/\(tool)-\(c.scenario.name)"
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = c.scenario.env.filter { !$0.key.hasPrefix("FAULTLINE_") }
        let argv = [executable] + c.scenario.args
        let hang = c.bugClass == "hang"
        let limit = hang ? min(c.scenario.timeout, Self.hangLimit) : Self.limit

        let toolArgv: [String], toolEnv: [String: String]
        switch tool {
        case "valgrind":
            toolArgv = ["valgrind", "--tool=memcheck", "--xml=yes", "--xml-file=\(dir)/valgrind.xml", "--leak-check=full",
                        "--child-silent-after-fork=yes"] + argv
            toolEnv = env
        case "asan":
            toolArgv = argv
            toolEnv = env.merging(["ASAN_OPTIONS": "log_path=\(dir)/asan"]) { $1 }
        default:
            toolArgv = argv
            toolEnv = env.merging(Self.preloadEnvironment(tool)) { $1 }
        }
        let plain: BenchProcess.Outcome
        do { plain = try BenchProcess(arguments: toolArgv, environment: toolEnv, timeLimit: limit).run() } catch {
            return DetectResult(caseName: c.scenario.name, tool: tool, outcome: .failed, note: "\(error)")
        }
        let timedOut = plain.timedOut ? "stopped at \(Int(limit)) s" : nil
        var verdicts: [DetectVerdict]
        switch tool {
        case "valgrind":
            // valgrind closes the XML at the end of the run; a run it gave up on leaves it open.
            let xml = FileManager.default.contents(atPath: "\(dir)/valgrind.xml") ?? Data()
            guard plain.timedOut || xml.range(of: Data("</valgrindoutput>".utf8)) != nil else {
                return DetectResult(caseName: c.scenario.name, tool: tool, outcome: .failed, seconds: plain.wallSeconds,
                                    note: "valgrind did not finish its XML: \(plain.failureDescription)")
            }
            verdicts = DetectValgrindXML.parseAll(xml)
        case "asan":
            let logs = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasPrefix("asan.") }.sorted()
            verdicts = logs.flatMap { DetectSanitizerReport.parseAll((try? String(contentsOfFile: "\(dir)/\($0)", encoding: .utf8)) ?? "") }
            // With no descriptor left for its log file (a victim that used them up), ASan writes to stderr.
            if verdicts.isEmpty { verdicts = DetectSanitizerReport.parseAll(plain.stderrTail) }
        default:
            let signaled = plain.signal != nil && !plain.timedOut
            let gdb = signaled ? backtrace(argv, env: toolEnv, signal: plain.signal!) : ""
            let v = DetectSignalReport.parse(stderr: plain.stderrTail, gdb: gdb, signaled: signaled)
            verdicts = [tool == "glibc" && v.className == "guard_fault" ? DetectVerdict(className: "crash", frames: v.frames) : v]
        }
        let result = DetectResult.judge(c, tool: tool, verdicts: verdicts, seconds: plain.wallSeconds, note: timedOut)
        // A run that never ended is the tool's failure unless the case is a hang.
        if plain.timedOut && !hang && result.outcome == .missed {
            return DetectResult(caseName: c.scenario.name, tool: tool, outcome: .failed, seconds: plain.wallSeconds, note: timedOut)
        }
        return result
    }

    /// The preload and options of the tools that replace or check malloc in the process.
    static func preloadEnvironment(_ tool: String) -> [String: String] {
        switch tool {
        case "efence":
            return ["LD_PRELOAD": BenchMachineTools.firstExisting(DetectTool.efencePaths) ?? "", "EF_ALLOW_MALLOC_0": "1"]
        case "duma":
            return ["LD_PRELOAD": BenchMachineTools.firstExisting(DetectTool.dumaPaths) ?? "", "DUMA_ALLOW_MALLOC_0": "1",
                    "DUMA_DISABLE_BANNER": "1"]
        default:
            // glibc 2.34 moved MALLOC_CHECK_ into libc_malloc_debug.so, which must be preloaded.
            return ["LD_PRELOAD": BenchMachineTools.firstExisting(DetectTool.mallocDebugPaths) ?? "", "MALLOC_CHECK_": "3",
                    "GLIBC_TUNABLES": "glibc.malloc.check=3"]
        }
    }

    /// gdb's output for `argv` run again with `env` (given to the program,
    /// not to gdb), stopping only at `signal`, then `bt`.
    private func backtrace(_ argv: [String], env: [String: String], signal: Int32) -> String {
        var args = ["gdb", "-q", "-batch", "-nx", "-iex", "set debuginfod enabled off", "-ex", "set startup-with-shell off",
                    "-ex", "handle all nostop noprint pass", "-ex", "handle \(SignalNames.name(of: signal)) stop print"]
        for (k, v) in env.sorted(by: { $0.key < $1.key }) { args += ["-ex", "set environment \(k)=\(v)"] }
        args += ["-ex", "run", "-ex", "bt 40", "--args"] + argv
        return (try? BenchProcess(arguments: args, timeLimit: Self.limit).run())?.stdout ?? ""
    }
}
