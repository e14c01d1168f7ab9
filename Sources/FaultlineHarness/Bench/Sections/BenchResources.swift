import Foundation

/// `faultline bench resources`: what each resource detector (cpu, fds,
/// threads, launch; docs/resources.md) costs a real program, measured from
/// outside as the other program comparisons are — python3 running the
/// stdlib workload (json, re, hashlib, threads, hundreds of opens), and a
/// short process (`/bin/true`), whose cost is the per-process one that
/// thousands of test processes pay. Every setup has the agent with the
/// crash detector; the rows add one resource detector each, then all four.
extension BenchSuite {
    func resources() -> [BenchMetric] {
        guard let agent = options.build.product(BuildDirectory.agentLibrary) else { return missingResources(BuildDirectory.agentLibrary) }
        let dir = NSTemporaryDirectory() + "faultline-bench-resources-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir + "/reports", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var metrics: [BenchMetric] = []
        if let python = BenchMachineTools.pythonInterpreter() {
            let script = dir + "/workload.py"
            _ = FileManager.default.createFile(atPath: script, contents: Data(BenchPythonWorkload.source.utf8))
            let records = options.quick ? "5000" : "30000"
            metrics += BenchProgramComparison(
                group: "resources", prefix: "resources.python", what: "python3: json, re, hashlib, threads over \(records) records",
                setups: Self.resourceSetups([python, script, records], agent: agent, reports: dir + "/reports"),
                rounds: options.quick ? 2 : 5, warmup: 1, peerRuns: 0, timeLimit: options.quick ? 30 : 180,
                outputKey: BenchPythonWorkload.outputKey, progress: progress
            ).run()
        }
        metrics += BenchProgramComparison(
            group: "resources", prefix: "resources.short", what: "/bin/true, a process that only starts and exits",
            setups: Self.resourceSetups(["/bin/true"], agent: agent, reports: dir + "/reports"),
            rounds: options.quick ? 10 : 40, warmup: 2, peerRuns: 0, timeLimit: 10, outputKey: { $0 }, progress: progress
        ).run()
        return metrics
    }

    /// The program alone, with the agent's crash detector, then with each
    /// resource detector added, then with all four.
    static func resourceSetups(_ argv: [String], agent: String, reports: String) -> [BenchProgramComparison.Setup] {
        func with(_ detectors: String) -> [String: String] {
            ["LD_PRELOAD": agent, "FAULTLINE_DETECTORS": detectors, "FAULTLINE_REPORT_DIR": reports]
        }
        return [
            .init(id: "alone", label: "the program alone", arguments: argv),
            .init(id: "crash", label: "agent: crash detector", arguments: argv, environment: with("crash")),
            .init(id: "cpu", label: "+ cpu", arguments: argv, environment: with("crash,cpu")),
            .init(id: "fds", label: "+ fds", arguments: argv, environment: with("crash,fds")),
            .init(id: "threads", label: "+ threads", arguments: argv, environment: with("crash,threads")),
            .init(id: "launch", label: "+ launch", arguments: argv, environment: with("crash,launch")),
            .init(id: "all", label: "+ cpu, fds, threads, launch", arguments: argv, environment: with("crash,cpu,fds,threads,launch")),
        ]
    }

    private func missingResources(_ product: String) -> [BenchMetric] {
        [BenchMetric(group: "resources", name: "resources.program", title: "resources: \(product) not built", unit: "",
                     entries: [BenchEntry(config: "resources", label: product, status: .unavailable, note: "build it with scripts/build")])]
    }
}
