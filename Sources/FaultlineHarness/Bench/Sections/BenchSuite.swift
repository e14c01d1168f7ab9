import Foundation

/// Options of one `faultline bench` run.
public struct BenchOptions: Sendable {
    /// The short run (within 2 minutes on 2 cores).
    public var quick: Bool
    /// Sections or metric-name prefixes to run; empty: all.
    public var filters: [String]
    /// Where the benchmark programs, the agent and the shim are built.
    public var build: BuildDirectory
    /// The package checkout (for bench-shim's source, rebuilt with ASan).
    public var packageRoot: String?

    /// Options.
    public init(quick: Bool, filters: [String], build: BuildDirectory, packageRoot: String?) {
        self.quick = quick
        self.filters = filters
        self.build = build
        self.packageRoot = packageRoot
    }
}

/// Every section of `faultline bench`, with its sizes for quick and full runs.
public struct BenchSuite {
    /// The sections, in run order.
    public static let sections = ["crash", "cxx", "shim", "peers", "python", "hang", "memory", "leaks", "resources"]

    /// Options.
    public var options: BenchOptions
    /// Progress lines (to stderr in the CLI).
    public var progress: @Sendable (String) -> Void

    /// A suite.
    public init(options: BenchOptions, progress: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.progress = progress
    }

    /// Whether a filter selects `section`: a filter names a section, or a
    /// prefix of it (`sh` selects `shim`).
    public static func selects(_ filters: [String], section: String) -> Bool {
        filters.isEmpty || filters.contains { section.hasPrefix($0) || $0.hasPrefix(section + ".") }
    }

    /// Filters that select no section (a one-line error each in the CLI).
    public static func unknownFilters(_ filters: [String]) -> [String] {
        filters.filter { f in !sections.contains { selects([f], section: $0) } }
    }

    /// Runs the selected sections.
    public func run() -> [BenchMetric] {
        var metrics: [BenchMetric] = []
        for section in Self.sections where Self.selects(options.filters, section: section) {
            var got: [BenchMetric]
            switch section {
            case "crash": got = crash()
            case "cxx": got = cxx()
            case "shim": got = shimSynthetic()
            case "peers": got = peers()
            case "python": got = python()
            case "hang": got = hang()
            case "memory": got = memory()
            case "resources": got = resources()
            default: got = leaks()
            }
            // A metric filter (`crash.capture`) keeps only matching metrics.
            let metricFilters = options.filters.filter { $0.contains(".") }
            if !metricFilters.isEmpty { got = got.filter { m in metricFilters.contains { m.name.hasPrefix($0) } } }
            metrics += got
        }
        return metrics
    }

    // MARK: - sections

    private var quick: Bool { options.quick }

    private func missing(_ group: String, _ product: String) -> [BenchMetric] {
        [BenchMetric(group: group, name: "\(group).program", title: "\(group): \(product) not built", unit: "",
                     entries: [BenchEntry(config: product, label: product, status: .unavailable,
                                          note: "\(product) is not built in \(options.build.path); run scripts/build -c release")])]
    }

    private func crash() -> [BenchMetric] {
        guard let p = options.build.product("bench-crash") else { return missing("crash", "bench-crash") }
        let runs = quick ? "10" : "25"
        let titles: [String: (String, String?)] = [
            "crash.fault_to_report_0threads": ("Fault 30 frames deep -> report committed, no other threads", nil),
            "crash.fault_to_report_4threads": ("Fault 30 frames deep -> report committed, 4 other threads", nil),
            "crash.fault_to_reaped_0threads": ("Fault -> process reaped by its parent, no other threads", "none"),
            "crash.fault_to_reaped_4threads": ("Fault -> process reaped by its parent, 4 other threads", "none"),
            "crash.capture_other_thread": ("Capture one other thread's stack (directed signal)", nil),
            "crash.reports_missing_0threads": ("Faults with no committed report within 5 s, no other threads (per invocation)", nil),
            "crash.reports_missing_4threads": ("Faults with no committed report within 5 s, 4 other threads (per invocation)", nil),
        ]
        return BenchLineRunner(
            group: "crash", program: p,
            invocations: ["none", "agent"].map { .init(id: $0, arguments: ["--json", "--config", $0, "--runs", runs]) },
            rounds: quick ? 3 : 6, warmup: 1, timeLimit: 120,
            describe: { titles[$0] ?? ($0, nil) },
            label: { $0 == "none" ? "no agent (kernel default)" : "agent installed" }, progress: progress
        ).run()
    }

    private func cxx() -> [BenchMetric] {
        guard let p = options.build.product("bench-cxx") else { return missing("cxx", "bench-cxx") }
        guard let agent = options.build.product(BuildDirectory.agentLibrary) else { return missing("cxx", BuildDirectory.agentLibrary) }
        let labels = ["none": "no agent", "agent_off": "agent, detector off", "detector_32": "detector on, 32 frames", "detector_8": "detector on, 8 frames"]
        return BenchLineRunner(
            group: "cxx", program: p,
            invocations: ["none", "agent_off", "detector_32", "detector_8"].map {
                .init(id: $0, arguments: ["--json", "--single", $0, "--depth", "24", "--agent", agent])
            },
            rounds: quick ? 3 : 7, warmup: 1, timeLimit: 120,
            describe: { name in
                name.hasPrefix("cxx.throw_catch")
                    ? ("Throw and catch std::runtime_error 24 calls deep (median ns per throw in a child)", "none")
                    : ("Extra ns per throw over libstdc++'s own __cxa_throw, same process (A-B)", nil)
            },
            label: { labels[$0] ?? $0 }, progress: progress
        ).run()
    }

    private struct ShimContext {
        var shim: String
        var leaks: Bool
        /// Where a leak check at exit would write its reports.
        var reports: String
    }

    /// The shim, and `dir`/reports for the reports of the leak setup.
    private func shimContext(reportsUnder dir: String) -> ShimContext? {
        guard let shim = options.build.product(BuildDirectory.mallocShimLibrary) else { return nil }
        let reports = dir + "/reports"
        try? FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: true)
        return ShimContext(shim: shim, leaks: BenchMachineTools.shimKnowsLeaks(shim), reports: reports)
    }

    /// Faultline's own shim setups around `argv`. Leak tracking is on by
    /// default in the shim, so the first modes turn it off explicitly; the
    /// leak setup is what `FAULTLINE_DETECTORS=use_after_free,leaks` gives a
    /// user: stacks, tracking and the leak check at exit.
    private func shimSetups(_ c: ShimContext, _ argv: [String], libunwind: Bool) -> [BenchProgramComparison.Setup] {
        let off = ["LD_PRELOAD": c.shim, "FAULTLINE_DETECTORS": "use_after_free", "FAULTLINE_LEAK_TRACKING": "0", "FAULTLINE_REPORT_DIR": c.reports]
        var s: [BenchProgramComparison.Setup] = [
            .init(id: "glibc", label: "glibc alone", arguments: argv),
            // The allocator under the checks alone (small blocks headerless: malloc-shim.md): issue 29's "every check off".
            .init(id: "checks_off", label: "shim: every check off (no quarantine, fill, scribble, stacks)", arguments: argv,
                  environment: off.merging(["FAULTLINE_MALLOC_STACKS": "0", "FAULTLINE_QUARANTINE_BYTES": "0",
                                            "FAULTLINE_FILL_LIMIT": "0", "FAULTLINE_SCRIBBLE_LIMIT": "0"]) { $1 }),
            .init(id: "quarantine", label: "shim: quarantine + scribble", arguments: argv,
                  environment: off.merging(["FAULTLINE_MALLOC_STACKS": "0"]) { $1 }),
            .init(id: "stacks_fp", label: "shim: + allocation stacks (frame pointers)", arguments: argv,
                  environment: off.merging(["FAULTLINE_MALLOC_STACKS": "1", "FAULTLINE_MALLOC_UNWINDER": "fp"]) { $1 }),
        ]
        if libunwind {
            s.append(.init(id: "stacks_auto", label: "shim: + allocation stacks (auto, the default)", arguments: argv,
                           environment: off.merging(["FAULTLINE_MALLOC_STACKS": "1", "FAULTLINE_MALLOC_UNWINDER": "auto"]) { $1 }))
            s.append(.init(id: "stacks_libunwind", label: "shim: + allocation stacks (libunwind)", arguments: argv,
                           environment: off.merging(["FAULTLINE_MALLOC_STACKS": "1", "FAULTLINE_MALLOC_UNWINDER": "libunwind"]) { $1 }))
        }
        // GWP-ASan's design: one block in 1000 guarded, the rest unchecked
        // (`faultline exec --guard sample:1000`; sample:100, id guard_sample, until issue 29).
        s.append(.init(id: "guard_sample_1000", label: "shim: guard pages, sample:1000 (the rest unchecked)", arguments: argv,
                       environment: off.merging(["FAULTLINE_MALLOC_STACKS": "1", "FAULTLINE_GUARD": "sample:1000"]) { $1 }))
        s.append(.init(id: "leaks", label: "shim: + leak tracking (+ check at exit)", arguments: argv,
                       environment: ["LD_PRELOAD": c.shim, "FAULTLINE_DETECTORS": "use_after_free,leaks", "FAULTLINE_LEAK_TRACKING": "1",
                                     "FAULTLINE_MALLOC_STACKS": "1", "FAULTLINE_REPORT_DIR": c.reports],
                       unavailable: c.leaks ? nil : "not available: the shim has no leak tracking yet (issue 5)"))
        return s
    }

    /// The peers around `argv`; each says why it cannot run when it cannot.
    private func peerSetups(_ argv: [String], heaptrackOut: String) -> [BenchProgramComparison.Setup] {
        let valgrind = BenchMachineTools.onPath("valgrind"), heaptrack = BenchMachineTools.onPath("heaptrack")
        let efence = BenchMachineTools.firstExisting(["/usr/lib/libefence.so.0", "/usr/lib/x86_64-linux-gnu/libefence.so.0"])
        let duma = BenchMachineTools.firstExisting(["/usr/lib/libduma.so.0", "/usr/lib/x86_64-linux-gnu/libduma.so.0"])
        let install = "not installed: FAULTLINE_SETUP_BENCH=1 scripts/setup"
        return [
            .init(id: "valgrind", label: "valgrind memcheck", arguments: [valgrind ?? "valgrind", "--tool=memcheck", "-q"] + argv,
                  peer: true, unavailable: valgrind == nil ? install : nil),
            .init(id: "efence", label: "Electric Fence", arguments: argv, environment: ["LD_PRELOAD": efence ?? "", "EF_ALLOW_MALLOC_0": "1"],
                  peer: true, unavailable: efence == nil ? install : nil),
            // Freed-page protection capped like the shim's quarantine: unlimited,
            // DUMA runs out of mappings (vm.max_map_count).
            .init(id: "duma", label: "DUMA (16 MB of freed pages kept)", arguments: argv,
                  environment: ["LD_PRELOAD": duma ?? "", "DUMA_ALLOW_MALLOC_0": "1", "DUMA_DISABLE_BANNER": "1", "DUMA_PROTECT_FREE": "16384"],
                  peer: true, unavailable: duma == nil ? install : nil),
            .init(id: "heaptrack", label: "heaptrack", arguments: [heaptrack ?? "heaptrack", "-o", heaptrackOut] + argv,
                  peer: true, unavailable: heaptrack == nil ? install : nil),
        ]
    }

    /// "checksum N" of the synthetic workload's line.
    private static func checksum(_ out: String) -> String {
        guard let r = out.range(of: "checksum ") else { return out }
        return String(out[r.lowerBound...].prefix { $0 != "\n" })
    }

    private func shimSynthetic() -> [BenchMetric] {
        guard let bench = options.build.product("bench-shim") else { return missing("shim", "bench-shim") }
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard let c = shimContext(reportsUnder: dir) else { return missing("shim", BuildDirectory.mallocShimLibrary) }
        let ops = quick ? "500000" : "2000000"
        let argv = [bench, "workload", "--workload", "mix", "--ops", ops, "--live", "20000", "--threads", "1"]
        // How far the shim is from the cheapest form of the same idea
        // (bench-shim's quarantine_model.h: no stacks, states or locks, and
        // freed memory never given back).
        func model(_ argv: [String]) -> BenchProgramComparison.Setup {
            .init(id: "model", label: "model: idealised quarantine (no stacks or states)", arguments: argv, environment: ["BENCH_SHIM_ALLOCATOR": "model"])
        }
        let mix = BenchProgramComparison(
            group: "shim", prefix: "shim.synthetic", what: "Synthetic malloc workload (\(ops) ops, 20000 live)",
            setups: shimSetups(c, argv, libunwind: true) + [model(argv)], rounds: quick ? 3 : 5, warmup: 1, peerRuns: 0, timeLimit: 120,
            outputKey: Self.checksum, progress: progress
        ).run()
        // Issue 29's pattern-light workload: uniform sizes, 16 bytes of each block touched.
        let uniformOps = quick ? "1000000" : "4000000"
        let uniformArgv = [bench, "workload", "--workload", "uniform", "--ops", uniformOps, "--live", "4096", "--threads", "1"]
        let uniform = BenchProgramComparison(
            group: "shim", prefix: "shim.uniform", what: "Uniform 16-4111 B workload, 16 B touched (\(uniformOps) ops, 4096 live)",
            setups: shimSetups(c, uniformArgv, libunwind: true) + [model(uniformArgv)], rounds: quick ? 3 : 5, warmup: 1, peerRuns: 0, timeLimit: 120,
            outputKey: Self.checksum, progress: progress
        ).run()
        return mix + uniform
    }

    /// A new private folder in /tmp (mkdtemp: 0700, a fresh name). Its
    /// name was faultline-bench-PID, made if missing: a folder or link
    /// planted under it was written into.
    private func temporaryDirectory() -> String {
        var template = Array((FileManager.default.temporaryDirectory.path + "/faultline-bench-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { $0.baseAddress.map { mkdtemp($0) != nil } ?? false }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return made ? path : path.replacingOccurrences(of: "XXXXXX", with: "\(getpid())-unmade")
    }

    private func peers() -> [BenchMetric] {
        guard let bench = options.build.product("bench-shim") else { return missing("peers", "bench-shim") }
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard let c = shimContext(reportsUnder: dir) else { return missing("peers", BuildDirectory.mallocShimLibrary) }
        // DUMA's cost grows faster than linearly: 50 000 ops take it 12 s,
        // 200 000 more than 120 s.
        let ops = quick ? "50000" : "100000"
        let tail = ["workload", "--ops", ops, "--live", "5000", "--threads", "1"]
        var setups = shimSetups(c, [bench] + tail, libunwind: false) + peerSetups([bench] + tail, heaptrackOut: dir + "/heaptrack")
        let source = (options.packageRoot ?? ".") + "/Sources/bench-shim"
        switch BenchMachineTools.buildASanWorkload(sourceDirectory: source, into: dir) {
        case .success(let asan):
            setups.append(.init(id: "asan", label: "AddressSanitizer (workload rebuilt)", arguments: [asan] + tail, peer: true))
        case .failure(let why):
            setups.append(.init(id: "asan", label: "AddressSanitizer (workload rebuilt)", arguments: [], peer: true, unavailable: why.description))
        }
        return BenchProgramComparison(
            group: "peers", prefix: "peers.synthetic", what: "Synthetic malloc workload, peers (\(ops) ops, 5000 live)",
            setups: setups, rounds: quick ? 1 : 3, warmup: quick ? 0 : 1, peerRuns: quick ? 1 : 2, timeLimit: quick ? 30 : 120,
            outputKey: Self.checksum, progress: progress
        ).run()
    }

    private func python() -> [BenchMetric] {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard let c = shimContext(reportsUnder: dir) else { return missing("python", BuildDirectory.mallocShimLibrary) }
        guard let python = BenchMachineTools.pythonInterpreter() else {
            return [BenchMetric(group: "python", name: "python.program", title: "python3", unit: "",
                                entries: [BenchEntry(config: "python3", label: "python3", status: .unavailable, note: "python3 not on PATH: scripts/setup installs it")])]
        }
        let script = dir + "/workload.py"
        _ = FileManager.default.createFile(atPath: script, contents: Data(BenchPythonWorkload.source.utf8))
        let records = quick ? "5000" : "30000"
        let argv = [python, script, records]
        progress("python: interpreter \(python)")
        return BenchProgramComparison(
            group: "python", prefix: "python.stdlib", what: "python3: json, re, hashlib, threads over \(records) records",
            setups: shimSetups(c, argv, libunwind: false) + peerSetups(argv, heaptrackOut: dir + "/heaptrack"),
            rounds: quick ? 2 : 5, warmup: 1, peerRuns: 1, timeLimit: quick ? 30 : 180,
            outputKey: BenchPythonWorkload.outputKey, progress: progress
        ).run()
    }

    private func hang() -> [BenchMetric] {
        guard let p = options.build.product("bench-hang") else { return missing("hang", "bench-hang") }
        let seconds = quick ? "1" : "2"
        let labels = [
            "inferred_idle": "inferred mode, main idle in poll", "heartbeat_idle": "heartbeat mode, loop idle",
            "inferred_busy": "inferred mode, main busy (sampled)", "heartbeat_busy": "heartbeat mode, loop stuck busy",
            "ping_idle": "ping mode (dispatch_main), idle", "ping_busy": "ping mode (dispatch_main), busy", "agent": "agent installed",
            "empty_handler": "floor: same signal, empty handler",
        ]
        let titles = [
            "hang.watchdog_cpu": "Watchdog thread CPU at a 50 ms interval (% of one core)",
            "hang.sample_spinning_main": "One stack sample of a spinning main thread, 30 frames",
            "hang.sample_blocked_main": "One stack sample of a blocked main thread, 30 frames",
            "hang.sampled_thread_cpu": "CPU the sampled (blocked) thread spends per sample",
        ]
        var invocations: [BenchLineRunner.Invocation] = [.init(id: "cpu", arguments: ["--json", "--only", "cpu", "--seconds", seconds])]
        invocations.append(.init(id: "sample", arguments: ["--json", "--only", "sample"]))
        return BenchLineRunner(
            group: "hang", program: p, invocations: invocations, rounds: quick ? 1 : 3, warmup: 0, timeLimit: 120,
            // The sample rows' ratios are against the floor measured beside
            // them: what a signal round trip costs with an empty handler.
            describe: { (titles[$0] ?? $0, $0 == "hang.watchdog_cpu" ? nil : "empty_handler") }, label: { labels[$0] ?? $0 },
            progress: progress
        ).run()
    }

    private func memory() -> [BenchMetric] {
        guard let p = options.build.product("bench-memory") else { return missing("memory", "bench-memory") }
        var invocations: [BenchLineRunner.Invocation] = [.init(id: "monitor", arguments: ["--json", "--only", "monitor", "1", quick ? "1" : "2"])]
        if !quick { invocations.append(.init(id: "kill", arguments: ["--json", "--only", "kill", "3"])) }
        let titles = [
            "memory.monitor_cpu": "Memory monitor thread CPU (% of one core) by interval",
            "memory.monitor_tick": "Memory monitor CPU per tick",
            "memory.kill_to_report": "OOM kill -> oom_kill report committed (faultline exec --memory-limit)",
        ]
        return BenchLineRunner(
            group: "memory", program: p, invocations: invocations, rounds: quick ? 1 : 3, warmup: 0, timeLimit: 120,
            describe: { (titles[$0] ?? $0, nil) },
            label: { $0 == "faultline_exec" ? "faultline exec" : "every \($0)" + ($0 == "100ms" ? " (default)" : "") }, progress: progress
        ).run()
    }

    private func leaks() -> [BenchMetric] {
        guard let p = options.build.product("bench-leaks") else { return missing("leaks", "bench-leaks") }
        let labels = [
            "glibc": "glibc alone", "shim_no_tracking": "shim, leak tracking off", "shim_leaks": "shim + leak tracking",
            "valgrind": "valgrind --leak-check=full", "heaptrack": "heaptrack",
        ]
        let titles = [
            "leaks.ns_per_pair": "Leak tracking: one malloc(32) + free pair",
            "leaks.metadata_bytes_per_block": "Leak tracking: RSS per live 32-byte block beyond glibc's",
            "leaks.live_workload_wall": "Leak tracking: live-block workload, including the tool's leak analysis (wall)",
            "leaks.scan_ms": "Leak tracking: one faultline_leak_check()",
        ]
        // bench-leaks runs its setups in one invocation (its own order); the
        // rounds here repeat that invocation.
        let metrics = BenchLineRunner(
            group: "leaks", program: p, invocations: [.init(id: "all", arguments: ["--json"] + (quick ? ["--quick"] : []))],
            rounds: quick ? 1 : 3, warmup: 0, timeLimit: quick ? 60 : 300,
            describe: { (titles[$0] ?? $0, "glibc") }, label: { labels[$0] ?? $0 }, progress: progress
        ).run()
        if metrics.map(\.name) == ["leaks.output"] {
            return [BenchMetric(group: "leaks", name: "leaks.program", title: "Leak tracking cost (bench-leaks)", unit: "",
                                entries: [BenchEntry(config: "bench-leaks", label: "bench-leaks", status: .unavailable,
                                                     note: "not yet machine-readable: `bench-leaks --json` printed no JSON lines")])]
        }
        // bench-leaks says the sizes in each line's note: into the title (so
        // --compare sees when they change), once.
        return metrics.map { m in
            var m = m
            if let note = m.entries.compactMap(\.note).first(where: { !$0.isEmpty }) {
                m.title += " (\(note))"
                for i in m.entries.indices where m.entries[i].note == note { m.entries[i].note = nil }
            }
            return m
        }
    }
}
