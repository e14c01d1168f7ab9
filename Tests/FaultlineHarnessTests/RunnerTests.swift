import Foundation
import Synchronization
import Testing
@testable import FaultlineHarness

/// Parses scenario YAML texts (named t0.yaml, t1.yaml…).
func scenarios(_ texts: [String]) throws -> [Scenario] {
    try texts.enumerated().map { i, text in try ScenarioLoader().parse(yaml: text, file: "t\(i).yaml") }
}

/// True when `pid` no longer runs (gone, or a zombie nobody reaped yet).
func isDead(_ pid: pid_t) -> Bool {
    if kill(pid, 0) != 0 && errno == ESRCH { return true }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return true }
    return stat[stat.index(close, offsetBy: 2)] == "Z"
}

/// The runner end to end with real victims.
@Suite struct RunnerTests {
    func options(_ dir: TemporaryDirectory, keep: Bool = false, repeatCount: Int = 1) -> RunOptions {
        RunOptions(buildDirectory: Products.build, artifactsRoot: dir.path + "/artifacts", jobs: 2, repeatCount: repeatCount, keepArtifacts: keep)
    }

    /// A victim named relative to its scenario file (`victim: ./bin/say.sh`)
    /// starts when the suite was loaded by a relative path, as `faultline run
    /// --scenarios Scenarios` loads it: the victim runs in its artifacts
    /// folder, where the path relative to the current directory named nothing
    /// (`cannot start Scenarios/…: No such file or directory`).
    @Test func victimRelativeToARelativeScenariosFolder() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/s/bin", withIntermediateDirectories: true)
        try writeScript("#!/bin/sh\necho started\n", to: dir.path + "/s/bin/say.sh")
        try writeScript("name: t.relative\nvictim: ./bin/say.sh\nexpect:\n  exit: {code: 0}\n  stdout_contains: [started]\n",
                        to: dir.path + "/s/t.relative.yaml")
        let cwd = FileManager.default.currentDirectoryPath
        let relative = String(repeating: "../", count: cwd.split(separator: "/").count) + dir.path.dropFirst() + "/s"
        let suite = ScenarioSuite.load(directory: relative)
        #expect(suite.errors.isEmpty)
        let result = SuiteRunner(options: options(dir)).run(suite.scenarios)
        #expect(result.scenarios.map(\.verdict) == [.pass])
    }

    @Test func passFailAndTimeout() throws {
        _ = try Products.require("victim-c")
        let agent = try Products.require(BuildDirectory.agentLibrary)
        let dir = try TemporaryDirectory()
        let suite = try scenarios([
            """
            name: t.pass
            victim: victim-c
            args: [null-deref]
            inject: [crash]
            expect:
              exit: {signal: SIGSEGV}
              reports: [{kind: crash, signal: SIGSEGV, frames: [victim_null_deref]}]
            """,
            """
            name: t.wrong-signal
            victim: victim-c
            args: [null-deref]
            inject: [crash]
            expect:
              exit: {signal: SIGABRT}
            """,
            """
            name: t.timeout
            victim: /bin/sh
            # a background child in the same group must die too
            args: ["-c", "sleep 30 & echo $! > bg.pid; wait"]
            timeout: 1s
            expect:
              exit: {code: 0}
            """,
        ])
        let result = SuiteRunner(options: options(dir)).run(suite)
        #expect(result.scenarios.map(\.verdict) == [.pass, .fail, .fail])
        #expect(result.failed)

        let pass = result.scenarios[0].runs[0]
        #expect(pass.failures == [])
        #expect(pass.artifacts == nil)
        #expect(!FileManager.default.fileExists(atPath: result.artifactsDirectory + "/t.pass"))

        let fail = result.scenarios[1].runs[0]
        #expect(result.scenarios[1].reason == "exit: expected SIGABRT, found SIGSEGV")
        let folder = try #require(fail.artifacts)
        #expect(folder == result.artifactsDirectory + "/t.wrong-signal")
        for file in ["stdout", "stderr", "command", "result.json", "reports"] {
            #expect(FileManager.default.fileExists(atPath: folder + "/" + file), "\(file)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/reports").count == 1)
        let command = try String(contentsOfFile: folder + "/command", encoding: .utf8)
        #expect(command.contains("LD_PRELOAD=\(agent)"))
        #expect(command.contains("FAULTLINE_DETECTORS=crash"))
        #expect(command.contains("FAULTLINE_REPORT_DIR=\(folder)/reports"))
        #expect(command.contains("SWIFT_BACKTRACE=enable=no"))
        #expect(try String(contentsOfFile: folder + "/stderr", encoding: .utf8).contains("victim: dereferencing NULL"))

        let timeout = result.scenarios[2].runs[0]
        #expect(timeout.exit == "timed out after 1s")
        #expect(result.scenarios[2].reason == "timeout: expected the victim to end within 1s, found timed out after 1s; its process group was killed")
        #expect(timeout.durationSeconds < 10)
        let pgid = try #require(timeout.pid)
        // Killed members may stay zombies for a moment until init reaps them.
        var polls = 0
        while kill(-pgid, 0) == 0 && polls < 300 { usleep(10_000); polls += 1 }
        #expect(kill(-pgid, 0) == -1 && errno == ESRCH, "process group \(pgid) still exists")
        let bgText = try String(contentsOfFile: try #require(timeout.artifacts) + "/bg.pid", encoding: .utf8)
        let background = try #require(pid_t(bgText.trimmingCharacters(in: .whitespacesAndNewlines)))
        var waited = 0
        while !isDead(background) && waited < 300 { usleep(10_000); waited += 1 }
        #expect(isDead(background), "background sleep \(background) survived the timeout")
    }

    @Test func unmetRequirementsAndMemoryLimitsSkip() throws {
        let dir = try TemporaryDirectory()
        let suite = try scenarios([
            "name: t.needs\nvictim: /bin/true\nrequires: [\"program:no-such-program-faultline\"]\nexpect: {exit: {code: 0}}\n",
            "name: t.limited\nvictim: /bin/true\nmemory_limit: 64M\nexpect: {exit: {code: 0}}\n",
            "name: t.runs\nvictim: /bin/true\nrequires: [\"program:sh\"]\nexpect: {exit: {code: 0}}\n",
            "name: t.needs-lib\nvictim: /bin/true\nrequires: [\"library:libno-such-library-faultline.so.1\"]\nexpect: {exit: {code: 0}}\n",
            "name: t.has-lib\nvictim: /bin/true\nrequires: [\"library:libc.so.6\"]\nexpect: {exit: {code: 0}}\n",
        ])
        let result = SuiteRunner(options: options(dir)).run(suite)
        #expect(result.scenarios.map(\.verdict) == [.skip, .skip, .pass, .skip, .pass])
        #expect(result.scenarios[3].reason?.hasPrefix("requires library:libno-such-library-faultline.so.1: needs the library libno-such-library-faultline.so.1, which is in none of /lib/") == true)
        #expect(result.scenarios[0].reason == "requires program:no-such-program-faultline: needs no-such-program-faultline, which is not on PATH; install it")
        #expect(result.scenarios[1].reason == "memory limits are not implemented yet")
        #expect(!result.failed)
        // A skipped run keeps a folder saying why.
        let folder = try #require(result.scenarios[1].runs[0].artifacts)
        #expect(try String(contentsOfFile: folder + "/result.json", encoding: .utf8).contains("memory limits are not implemented yet"))
    }

    /// Records the hook calls; `attach` checks the pid is a live process.
    final class RecordingLimit: MemoryLimitRunner, MemoryLimitSession {
        let calls = Mutex<[String]>([])
        func prepare(limit bytes: UInt64, label: String) throws -> any MemoryLimitSession {
            calls.withLock { $0.append("prepare \(bytes) \(label)") }
            return self
        }
        func attach(pid: pid_t) throws {
            let alive = FileManager.default.fileExists(atPath: "/proc/\(pid)")
            calls.withLock { $0.append("attach alive=\(alive)") }
        }
        func finish(exit: VictimExit) -> MemoryLimitOutcome {
            calls.withLock { $0.append("finish \(exit)") }
            return MemoryLimitOutcome(oomKilled: false, peakBytes: 4096, note: "recorded")
        }
    }

    @Test func memoryLimitHookIsCalledInOrder() throws {
        let dir = try TemporaryDirectory()
        var opts = options(dir)
        let limit = RecordingLimit()
        opts.memoryLimitRunner = limit
        let suite = try scenarios(["name: t.limited\nvictim: /bin/sleep\nargs: [\"0.2\"]\nmemory_limit: 1G\nexpect: {exit: {code: 0}}\n"])
        let result = SuiteRunner(options: opts).run(suite)
        #expect(result.scenarios[0].verdict == .pass)
        #expect(limit.calls.withLock { $0 } == ["prepare 1073741824 t.limited", "attach alive=true", "finish exit code 0"])
        #expect(result.scenarios[0].runs[0].memoryLimit == MemoryLimitOutcome(oomKilled: false, peakBytes: 4096, note: "recorded"))
    }

    /// On a machine without a memory cgroup a `memory_limit` scenario SKIPs
    /// with the reason, never reaching the limit hook (it failed there).
    @Test func memoryLimitWithoutACgroupSkipsWithTheReason() throws {
        let dir = try TemporaryDirectory()
        var registry = RequirementRegistry.standard
        registry.register("cgroup-memory", help: "a memory cgroup can be created") { _ in
            "no memory controller on this machine (test); run where a memory cgroup can be created"
        }
        var opts = options(dir)
        opts.requirements = registry
        let limit = RecordingLimit()
        opts.memoryLimitRunner = limit
        let yaml = "name: t.limited\nvictim: /bin/true\nmemory_limit: 64M\nexpect: {exit: {code: 0}}\n"
        let scenario = try ScenarioLoader(requirements: registry).parse(yaml: yaml, file: "t.yaml")
        let result = SuiteRunner(options: opts).run([scenario])
        #expect(result.scenarios[0].verdict == .skip)
        #expect(result.scenarios[0].reason == "requires cgroup-memory: no memory controller on this machine (test); run where a memory cgroup can be created")
        #expect(limit.calls.withLock { $0 } == [])
        #expect(!result.failed)
    }

    @Test func repeatRunsEachScenarioAndKeepsNumberedFolders() throws {
        let dir = try TemporaryDirectory()
        let suite = try scenarios(["name: t.again\nvictim: victim-c\nargs: [exit]\ninject: [crash]\nexpect: {exit: {code: 0}, no_reports: true}\n"])
        let result = SuiteRunner(options: options(dir, keep: true, repeatCount: 3)).run(suite)
        let s = result.scenarios[0]
        #expect(s.verdict == .pass)
        #expect(s.runs.map(\.repeatIndex) == [1, 2, 3])
        #expect(s.passRate == (3, 3))
        for i in 1...3 { #expect(FileManager.default.fileExists(atPath: result.artifactsDirectory + "/t.again-\(i)/result.json")) }
    }

    @Test func environmentAndInjection() throws {
        let dir = try TemporaryDirectory()
        let shim = try Products.require(BuildDirectory.mallocShimLibrary)
        let suite = try scenarios([
            """
            name: t.env
            victim: /usr/bin/env
            inject: [crash, hang]
            mode: linked
            env: {SWIFT_BACKTRACE: "enable=yes", EXTRA: "1"}
            expect:
              exit: {code: 0}
              stdout_contains: ["FAULTLINE_DETECTORS=crash,hang", "SWIFT_BACKTRACE=enable=yes", "FAULTLINE_CAPTURE_STDERR=1", "EXTRA=1"]
            """,
            "name: t.shim\nvictim: /bin/true\ninject: [leaks]\nexpect: {exit: {code: 0}}\n",
            "name: t.nothing\nvictim: /usr/bin/env\ninject: []\nexpect: {stdout_contains: [FAULTLINE_DETECTORS=none]}\n",
        ])
        let result = SuiteRunner(options: options(dir, keep: true)).run(suite)
        #expect(result.scenarios[0].verdict == .pass, "\(result.scenarios[0].reason ?? "")")
        #expect(result.scenarios[2].verdict == .pass, "\(result.scenarios[2].reason ?? "")")
        let linkedOut = try String(contentsOfFile: result.artifactsDirectory + "/t.env/stdout", encoding: .utf8)
        #expect(!linkedOut.contains("LD_PRELOAD="))
        let nothingOut = try String(contentsOfFile: result.artifactsDirectory + "/t.nothing/stdout", encoding: .utf8)
        #expect(!nothingOut.contains("LD_PRELOAD="))
        let shimCommand = try String(contentsOfFile: result.artifactsDirectory + "/t.shim/command", encoding: .utf8)
        #expect(shimCommand.contains("LD_PRELOAD=\(Products.build.path)/\(BuildDirectory.agentLibrary):\(shim)"))
        #expect(shimCommand.contains("FAULTLINE_DETECTORS=leaks"))
    }

    @Test func missingVictimFailsWithWhatToDo() throws {
        let dir = try TemporaryDirectory()
        let suite = try scenarios(["name: t.missing\nvictim: no-such-victim-faultline\nexpect: {exit: {code: 0}}\n"])
        let result = SuiteRunner(options: options(dir)).run(suite)
        #expect(result.scenarios[0].verdict == .fail)
        #expect(result.scenarios[0].reason == "victim: expected a program to run, found victim 'no-such-victim-faultline' is neither built in \(Products.build.path) nor on PATH; build it with `swift build --product no-such-victim-faultline` or pass --build-dir")
    }

    @Test func mixedRepeatsAreFlaky() throws {
        let dir = try TemporaryDirectory()
        var opts = options(dir, repeatCount: 3)
        opts.jobs = 1
        // The first run leaves a marker in the shared run folder and fails;
        // later runs find it and pass.
        let suite = try scenarios([
            "name: t.flaky\nvictim: /bin/sh\nargs: [\"-c\", \"test -e ../marker || { touch ../marker; exit 1; }\"]\nexpect: {exit: {code: 0}}\n",
        ])
        let result = SuiteRunner(options: opts).run(suite)
        let s = result.scenarios[0]
        #expect(s.runs.map(\.verdict) == [.fail, .pass, .pass])
        #expect(s.verdict == .flaky)
        #expect(s.passRate == (2, 3))
        #expect(s.reason == "passed 2/3; exit: expected exit code 0, found exit code 1")
        #expect(result.failed)
    }

    @Test func relativeArtifactsRootWorks() throws {
        let dir = try TemporaryDirectory()
        // The same folder, written relative to the current directory.
        let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
        let relative = String(repeating: "../", count: depth) + dir.path.dropFirst() + "/artifacts"
        var opts = options(dir, keep: true)
        opts.artifactsRoot = relative
        let suite = try scenarios(["name: t.rel\nvictim: victim-c\nargs: [exit]\ninject: [crash]\nexpect: {exit: {code: 0}, stdout_contains: [\"victim: exiting\"], no_reports: true}\n"])
        let result = SuiteRunner(options: opts).run(suite)
        #expect(result.scenarios[0].verdict == .pass, "\(result.scenarios[0].reason ?? "")")
        #expect(result.artifactsDirectory.hasPrefix("/"))
        #expect(FileManager.default.fileExists(atPath: result.artifactsDirectory + "/t.rel/stdout"))
    }
}
