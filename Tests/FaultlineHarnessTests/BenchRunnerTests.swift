import Foundation
import Testing
@testable import FaultlineHarness

/// Real small runs: shell programs that follow the JSON-lines contract, and
/// bench-crash itself.
@Suite struct BenchRunnerTests {
    /// A program that logs each call's configuration and prints a value
    /// proportional to it (a: 10, b: 20, c: 30) plus a second metric.
    private func contractProgram(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.path + "/prog.sh"
        try writeScript("""
            #!/bin/sh
            echo "$1" >> "\(dir.path)/calls"
            case "$1" in a) v=10 ;; b) v=20 ;; c) v=30 ;; fail) echo "broken" >&2; exit 3 ;; esac
            echo "human text is ignored"
            echo "{\\"metric\\":\\"t.value\\",\\"config\\":\\"$1\\",\\"unit\\":\\"us\\",\\"value\\":$v}"
            echo "{\\"metric\\":\\"t.samples\\",\\"config\\":\\"$1\\",\\"unit\\":\\"us\\",\\"samples\\":[$v,$v]}"
            """, to: path)
        return path
    }

    private func runner(_ program: String, _ configs: [String], rounds: Int, warmup: Int) -> BenchLineRunner {
        BenchLineRunner(group: "t", program: program, invocations: configs.map { .init(id: $0, arguments: [$0]) },
                        rounds: rounds, warmup: warmup, timeLimit: 30,
                        describe: { ($0 == "t.value" ? "Value" : "Samples", "a") }, label: { "config \($0)" }, progress: { _ in })
    }

    @Test func lineRunnerAlternatesDiscardsWarmUpAndComputesRatios() throws {
        let dir = try TemporaryDirectory()
        let prog = try contractProgram(dir)
        let metrics = runner(prog, ["a", "b", "c"], rounds: 2, warmup: 1).run()
        let calls = try String(contentsOfFile: dir.path + "/calls", encoding: .utf8).split(separator: "\n")
        #expect(calls == ["a", "b", "c", "c", "b", "a", "a", "b", "c"])
        #expect(metrics.map(\.name) == ["t.value", "t.samples"])
        let value = metrics[0]
        #expect(value.baseline == "a" && value.unit == "us" && value.title == "Value")
        #expect(value.entries.map(\.config) == ["a", "b", "c"])
        #expect(value.entries.map(\.label) == ["config a", "config b", "config c"])
        // Two kept rounds: the warm-up round's samples are gone.
        #expect(value.entries.allSatisfy { $0.samples.count == 2 })
        #expect(metrics[1].entries.allSatisfy { $0.samples.count == 4 })
        #expect(value.entries[1].ratio?.median == 2)
        #expect(value.entries[2].ratio?.median == 3)
    }

    @Test func aFailingInvocationIsShownWithItsReason() throws {
        let dir = try TemporaryDirectory()
        let prog = try contractProgram(dir)
        let metrics = runner(prog, ["a", "fail"], rounds: 1, warmup: 0).run()
        let failures = try #require(metrics.first { $0.name == "t.failures" })
        #expect(failures.entries.count == 1)
        #expect(failures.entries[0].status == .failed)
        #expect(failures.entries[0].note?.contains("exit status 3: broken") == true)
    }

    /// A peer that fails the way valgrind does: every line carries its
    /// `==PID==` prefix and the last one is empty after it.
    @Test func aValgrindStyleFailureNamesItsLastWords() throws {
        let run = try BenchProcess(arguments: ["/bin/sh", "-c",
            "printf '==77== Valgrind: debuginfo reader: Possibly corrupted debuginfo file.\\n==77== Valgrind: I cannot recover.\\n==77== \\n' >&2; exit 1"]).run()
        #expect(run.failureDescription == "exit status 1: Valgrind: I cannot recover.")
    }

    @Test func processRunMeasuresCPUFromTheKernelAndStopsAtTheLimit() throws {
        let busy = try BenchProcess(arguments: ["/bin/sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; echo done"]).run()
        #expect(busy.succeeded && busy.stdout == "done\n")
        #expect(busy.cpuSeconds > 0 && busy.maxRSSMB > 0)
        #expect(busy.cpuSeconds <= busy.wallSeconds * 1.5)
        let slow = try BenchProcess(arguments: ["/bin/sh", "-c", "sleep 20"], timeLimit: 0.3).run()
        #expect(slow.timedOut && !slow.succeeded)
        #expect(slow.wallSeconds < 10)
        #expect(slow.failureDescription.hasPrefix("stopped at the time limit"))
    }

    @Test func processRunGetsOnlyTheConfiguredInjection() throws {
        setenv("FAULTLINE_BENCH_TEST_LEAK", "1", 1)
        defer { unsetenv("FAULTLINE_BENCH_TEST_LEAK") }
        let o = try BenchProcess(arguments: ["/bin/sh", "-c", "echo \"[$FAULTLINE_BENCH_TEST_LEAK][$LD_PRELOAD][$X]\""], environment: ["X": "y"]).run()
        #expect(o.stdout == "[][][y]\n")
    }

    @Test func comparisonFlagsDifferentOutputFailuresAndUnavailablePeers() throws {
        let setups: [BenchProgramComparison.Setup] = [
            .init(id: "base", label: "base", arguments: ["/bin/sh", "-c", "echo checksum 42"]),
            .init(id: "same", label: "same", arguments: ["/bin/sh", "-c", "echo noise; echo checksum 42"]),
            .init(id: "other", label: "other", arguments: ["/bin/sh", "-c", "echo checksum 41"]),
            .init(id: "dies", label: "dies", arguments: ["/bin/sh", "-c", "kill -9 $$"], peer: true),
            .init(id: "absent", label: "absent", arguments: [], peer: true, unavailable: "not installed"),
        ]
        let metrics = BenchProgramComparison(
            group: "t", prefix: "t.prog", what: "prog", setups: setups, rounds: 2, warmup: 1, peerRuns: 1, timeLimit: 30,
            outputKey: { out in String(out.split(separator: "\n").last ?? "") }, progress: { _ in }
        ).run()
        #expect(metrics.map(\.name) == ["t.prog_cpu", "t.prog_rss", "t.prog_wall"])
        let cpu = metrics[0]
        #expect(cpu.baseline == "base")
        #expect(cpu.entries.map(\.status) == [.ok, .ok, .failed, .failed, .unavailable])
        #expect(cpu.entries[0].samples.count == 2 && cpu.entries[1].samples.count == 2)
        #expect(cpu.entries[2].note == "output differs from glibc's")
        #expect(cpu.entries[3].note == "killed by signal 9")
        #expect(cpu.entries[4].note == "not installed")
        #expect(metrics[1].entries[0].summary.map { $0.median > 0 } == true)
    }

    @Test func benchCrashFollowsTheContract() throws {
        let program = try Products.require("bench-crash")
        let metrics = BenchLineRunner(
            group: "crash", program: program,
            invocations: ["none", "agent"].map { .init(id: $0, arguments: ["--json", "--config", $0, "--runs", "2"]) },
            rounds: 1, warmup: 0, timeLimit: 60, describe: { ($0, "none") }, label: { $0 }, progress: { _ in }
        ).run()
        let names = Set(metrics.map(\.name))
        #expect(names.isSuperset(of: ["crash.fault_to_reaped_0threads", "crash.fault_to_report_0threads", "crash.capture_other_thread"]))
        #expect(!names.contains("crash.failures"))
        let reaped = try #require(metrics.first { $0.name == "crash.fault_to_reaped_0threads" })
        #expect(reaped.entries.map(\.config) == ["none", "agent"])
        #expect(reaped.entries.allSatisfy { $0.samples.count == 2 && $0.samples.allSatisfy { $0 > 0 } })
        #expect(reaped.entries[1].ratio != nil)
        // Only the agent writes reports.
        let report = try #require(metrics.first { $0.name == "crash.fault_to_report_0threads" })
        #expect(report.entries.map(\.config) == ["agent"])
    }

    @Test func aPreloadLibraryThatLoadsTheSwiftRuntimeIsNamed() throws {
        // Real ldd over stand-ins: a toolchain library that needs libswiftCore
        // as the agent and as the C++ describer, zlib (which does not) as the shim.
        let swiftLib = "/opt/swift/usr/lib/swift/linux/libswift_Concurrency.so", plain = "/lib/x86_64-linux-gnu/libz.so.1"
        try #require(FileManager.default.fileExists(atPath: swiftLib) && FileManager.default.fileExists(atPath: plain))
        let dir = try TemporaryDirectory()
        try FileManager.default.copyItem(atPath: swiftLib, toPath: dir.path + "/" + BuildDirectory.agentLibrary)
        try FileManager.default.copyItem(atPath: plain, toPath: dir.path + "/" + BuildDirectory.mallocShimLibrary)
        try FileManager.default.copyItem(atPath: swiftLib, toPath: dir.path + "/" + BuildDirectory.agentCxxLibrary)
        let heavy = BenchBuildCheck.librariesLoadingSwiftRuntime(in: BuildDirectory(path: dir.path))
        #expect(heavy == [dir.path + "/" + BuildDirectory.agentLibrary, dir.path + "/" + BuildDirectory.agentCxxLibrary])
    }

    @Test func leaksSectionTakesBenchLeaksLinesWithTheirSizesInTheTitles() throws {
        _ = try Products.require("bench-leaks")
        _ = try Products.require(BuildDirectory.mallocShimLibrary)
        let suite = BenchSuite(options: BenchOptions(quick: true, filters: ["leaks"], build: Products.build, packageRoot: Products.build.packageRoot()),
                               progress: { _ in })
        let metrics = suite.run()
        #expect(metrics.allSatisfy { $0.group == "leaks" })
        let pair = try #require(metrics.first { $0.name == "leaks.ns_per_pair" })
        #expect(pair.title.hasPrefix("Leak tracking: one malloc(32) + free pair (") && pair.title.contains("pairs"))
        #expect(pair.baseline == "glibc")
        let tracked = try #require(pair.entries.first { $0.config == "shim_leaks" })
        #expect(tracked.label == "shim + leak tracking" && tracked.status == .ok && tracked.ratio != nil)
        #expect(tracked.note == nil)  // the size moved into the title
    }

    @Test func filtersSelectSectionsAndMetricsAndUnknownOnesAreNamed() {
        #expect(BenchSuite.selects([], section: "crash"))
        #expect(BenchSuite.selects(["sh"], section: "shim") && !BenchSuite.selects(["sh"], section: "crash"))
        #expect(BenchSuite.selects(["crash.capture"], section: "crash"))
        #expect(BenchSuite.unknownFilters(["crash", "nonsense", "hang.watchdog"]) == ["nonsense"])
    }
}
