import Faultline
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What this machine offers, decided once by trying (never assumed).
enum CGroupHost {
    /// nil when a memory cgroup can be created and removed here, else why not.
    static let memoryProblem: String? = {
        switch CGroupDiscovery.memory() {
        case .failure(let e): return e.description
        case .success(let h):
            do {
                let cg = try MemoryCGroup.create(name: "faultline-test-probe-\(getpid())", limit: 16 << 20, in: h)
                try cg.remove()
                return nil
            } catch {
                return "\(error)"
            }
        }
    }()

    /// True when the memory controller is on cgroup v1 and usable.
    static var v1Memory: Bool {
        memoryProblem == nil && (try? CGroupDiscovery.memory().get())?.version == .v1
    }

    /// The v2 hierarchy with a memory controller, or why there is none.
    static let v2Memory: Result<CGroupHierarchy, CGroupError> = {
        guard let v2 = CGroupDiscovery.unified() else { return .failure(CGroupError("no cgroup v2 mount")) }
        guard v2.hasMemoryController else {
            return .failure(CGroupError("cgroup v2 at \(v2.mount.mountPoint) offers only [\(v2.mount.controllers.sorted().joined(separator: " "))]: the memory controller is bound to cgroup v1 here"))
        }
        return .success(v2)
    }()

    /// A writable v2 hierarchy (any controllers), or nil.
    static let v2Writable: CGroupHierarchy? = {
        guard let v2 = CGroupDiscovery.unified() else { return nil }
        guard let dir = try? CGroupDirectory.create(parent: v2.ownDirectory, name: "faultline-test-probe-\(getpid())", version: .v2) else { return nil }
        try? dir.remove()
        return v2
    }()

    static var v2MemoryReason: String {
        if case .failure(let e) = v2Memory { return "SKIP: \(e.description)" }
        return ""
    }
}

/// A victim run inside a `MemoryLimitedRun`, spawned the way the runner does.
struct LimitedVictim {
    var result: MemoryLimitedRunResult
    var pid: pid_t
    var stdout: String
    /// The report directory, removed when the last copy of this value goes.
    let directory: OwnedTemporaryDirectory
    var reportDirectory: String { directory.path }

    /// Runs `victim-oom ARGS` (or `program`) limited to `limit` bytes; with
    /// `agent`, the agent is preloaded with detectors `memory`. `whileRunning`
    /// gets the run and the pid after attach (to kill it, say).
    static func run(_ args: [String], limit: UInt64, program: String = "victim-oom", agent: Bool = false,
                    environment: [String: String] = [:], hierarchy: CGroupHierarchy? = nil,
                    whileRunning: (MemoryLimitedRun, pid_t) -> Void = { _, _ in },
                    timedOut: Double? = nil) throws -> LimitedVictim {
        let owned = try OwnedTemporaryDirectory("faultline-cgroup-test")
        let dir = owned.path
        let victim = try BuildProducts.path(program)
        var env = ProcessInfo.processInfo.environment
        env["SWIFT_BACKTRACE"] = "enable=no"
        env["FAULTLINE_REPORT_DIR"] = dir
        if agent {
            env["LD_PRELOAD"] = try BuildProducts.path("libFaultlineAgentPreload.so")
            env["FAULTLINE_DETECTORS"] = "memory"
        }
        for (k, v) in environment { env[k] = v }
        let run = try MemoryLimitedRun.prepare(limit: limit, label: "test", pollIntervalMs: 5)
        let out = try CloexecPipe()
        let devnull = FileHandle(forReadingAtPath: "/dev/null")!
        try run.enterForSpawn()
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(victim, arguments: [victim] + args, environment: env,
                                         stdin: devnull.fileDescriptor, stdout: out.write.fileDescriptor,
                                         stderr: devnull.fileDescriptor)
        } catch {
            run.leaveAfterSpawn()
            _ = run.finish(status: nil)
            throw error
        }
        try out.write.close()
        try run.attach(pid: pid)
        whileRunning(run, pid)
        let stdout = out.read.readDataToEndOfFile()
        let status: WaitStatus
        switch ChildProcess.wait(pid) {
        case .exited(let c): status = .exited(c)
        case .signaled(let s): status = .signaled(s)
        }
        let result = run.finish(status: timedOut == nil ? status : nil, timedOutAfter: timedOut)
        return LimitedVictim(result: result, pid: pid, stdout: String(decoding: stdout, as: UTF8.self), directory: owned)
    }

    /// The reports written, loaded.
    func reports() throws -> [Report] {
        try result.reports.map { try ReportStore.load(path: $0) }
    }
}

@Suite struct CGroupDiscoveryTests {
    @Test func parsesMountinfoOfAHybridMachine() {
        // Lines as this machine's kernel writes them (a v1 memory hierarchy and
        // an empty-controller v2 mount), plus an escaped mount point.
        let text = """
            30 25 0:26 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory
            31 25 0:27 / /sys/fs/cgroup/cpu\\040x rw,relatime - cgroup cgroup rw,cpu
            36 25 0:32 /sub /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd
            40 22 0:5 / /proc rw - proc proc rw
            """
        let mounts = CGroupMount.parse(mountinfo: text)
        #expect(mounts.count == 3)
        #expect(mounts[0].controllers == ["memory"] && mounts[0].version == .v1 && mounts[0].writable)
        #expect(mounts[1].mountPoint == "/sys/fs/cgroup/cpu x")
        #expect(mounts[2].controllers == ["name=systemd"] && mounts[2].root == "/sub")
        let members = CGroupMembership.parse("4:memory:/a/b\n9:name=systemd:/sub/c\n0::/\n")
        let hs = CGroupDiscovery.hierarchies(mounts: mounts, memberships: members)
        #expect(hs.first { $0.hasMemoryController }?.ownDirectory == "/sys/fs/cgroup/memory/a/b")
        #expect(hs.first { $0.mount.controllers == ["name=systemd"] }?.ownDirectory == "/sys/fs/cgroup/systemd/c")
    }

    @Test(.enabled(if: CGroupHost.memoryProblem == nil, "SKIP: \(CGroupHost.memoryProblem ?? "")"))
    func findsOwnMemoryCgroupLikeProcSelfCgroup() throws {
        let h = try CGroupDiscovery.memory().get()
        let own = try #require(CGroupMembership.of()?.first { h.version == .v2 ? $0.version == .v2 : $0.controllers.contains("memory") })
        #expect(h.ownPath == own.path)
        // The directory is real: it lists this process.
        #expect(CGroupDirectory(path: h.ownDirectory, version: h.version).processes().contains(getpid()))
    }
}

@Suite struct CGroupV1Tests {
    @Test(.enabled(if: CGroupHost.v1Memory, "SKIP: no usable cgroup v1 memory controller: \(CGroupHost.memoryProblem ?? "memory is on v2")"))
    func createLimitReadAndRemove() throws {
        let cg = try MemoryCGroup.create(name: "faultline-test-create-\(getpid())", limit: 24 << 20)
        #expect(cg.version == .v1)
        #expect(FileManager.default.fileExists(atPath: cg.path + "/memory.limit_in_bytes"))
        let c = cg.counters()
        #expect(c.limitBytes == 24 << 20)
        #expect(c.oomKills == 0)
        #expect(c.usageBytes == 0)
        #expect(CGroupCleanup.shared.pending.contains(cg))
        try cg.remove()
        #expect(!FileManager.default.fileExists(atPath: cg.path))
        #expect(!CGroupCleanup.shared.pending.contains(cg))
    }

    /// A limit above an ancestor's cannot be had (the ancestor's applies to
    /// everything below it, and an OOM kill there took faultline itself,
    /// leaving no report and the cgroup behind): one line naming both.
    @Test(.enabled(if: CGroupHost.v1Memory, "SKIP: no usable cgroup v1 memory controller"))
    func limitAboveAnAncestorsLimitIsRefusedInOneLine() throws {
        var h = try CGroupDiscovery.memory().get()
        let parent = try CGroupDirectory.create(parent: h.ownDirectory, name: "faultline-test-ancestor-\(getpid())", version: .v1)
        defer { try? parent.remove() }
        try "50331648".write(toFile: parent.path + "/memory.limit_in_bytes", atomically: false, encoding: .utf8)
        h.ownDirectory = parent.path
        #expect {
            _ = try MemoryCGroup.create(name: "faultline-test-above", limit: 1 << 30, in: h)
        } throws: { error in
            let text = "\(error)"
            return text.contains("1.0 GiB") && text.contains("48.0 MiB") && text.contains(parent.path) && !text.contains("\n")
        }
        #expect(!FileManager.default.fileExists(atPath: parent.path + "/faultline-test-above"))
        // At or below the ancestor's limit is fine.
        let below = try MemoryCGroup.create(name: "faultline-test-below", limit: 32 << 20, in: h)
        try below.remove()
    }

    @Test(.enabled(if: CGroupHost.v1Memory, "SKIP: no usable cgroup v1 memory controller"))
    func spawnedChildStartsInsideAndTheThreadGoesHome() throws {
        let run = try MemoryLimitedRun.prepare(limit: 32 << 20, label: "test-placement")
        let victim = try BuildProducts.path("victim-oom")
        let home = CGroupMembership.ofThread(currentTid())?.first { $0.controllers.contains("memory") }?.path
        try run.enterForSpawn()
        let inside = CGroupMembership.ofThread(currentTid())?.first { $0.controllers.contains("memory") }?.path
        let pid = try ChildProcess.spawn(victim, arguments: [victim, "sleep-forever"], environment: [:])
        run.leaveAfterSpawn()
        #expect(inside == run.cgroup.hierarchyPath)
        #expect(CGroupMembership.ofThread(currentTid())?.first { $0.controllers.contains("memory") }?.path == home)
        // The program is inside from its start (read before anything else could move it).
        #expect(CGroupMembership.of(pid: pid)?.first { $0.controllers.contains("memory") }?.path == run.cgroup.hierarchyPath)
        #expect(run.cgroup.processes() == [pid])
        try run.attach(pid: pid)
        kill(pid, SIGKILL)
        _ = ChildProcess.wait(pid)
        let result = run.finish(status: .signaled(9))
        #expect(result.problems.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: run.cgroup.path))
    }

    /// Starts `victim-oom sleep-forever` inside `run`'s cgroup, with a
    /// reaper so that, once killed, it does not stay a zombie of ours.
    private func startSleeper(in run: MemoryLimitedRun) throws -> pid_t {
        let victim = try BuildProducts.path("victim-oom")
        try run.enterForSpawn()
        let pid = try ChildProcess.spawn(victim, arguments: [victim, "sleep-forever"], environment: [:])
        run.leaveAfterSpawn()
        Thread { _ = ChildProcess.wait(pid) }.start()
        return pid
    }

    /// Removes `run`'s cgroup and checks that it and `pid` are gone.
    private func expectRemoved(_ run: MemoryLimitedRun, with pid: pid_t) throws {
        try run.cgroup.remove()
        #expect(!FileManager.default.fileExists(atPath: run.cgroup.path))
        #expect(kill(pid, 0) != 0 || (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.contains(") Z") == true)
    }

    @Test(.enabled(if: CGroupHost.v1Memory, "SKIP: no usable cgroup v1 memory controller"))
    func removeKillsWhatIsLeftInside() throws {
        let run = try MemoryLimitedRun.prepare(limit: 32 << 20, label: "test-remove")
        let pid = try startSleeper(in: run)
        try expectRemoved(run, with: pid)
    }

    /// A program may make cgroups below the run's and move processes there
    /// (a container runtime does): they are inside, and removal takes them
    /// and their processes (it failed with EBUSY and left the cgroup).
    @Test(.enabled(if: CGroupHost.v1Memory, "SKIP: no usable cgroup v1 memory controller"))
    func removeTakesTheCgroupsAProgramMadeBelowAndWhatIsInThem() throws {
        let run = try MemoryLimitedRun.prepare(limit: 32 << 20, label: "test-nested")
        let pid = try startSleeper(in: run)
        let nested = try CGroupDirectory.create(parent: run.cgroup.path, name: "nested", version: .v1)
        let deeper = try CGroupDirectory.create(parent: nested.path, name: "deeper", version: .v1)
        try deeper.addProcess(pid)
        #expect(run.cgroup.directory.subtree().map(\.path) == [run.cgroup.path, nested.path, deeper.path])
        #expect(run.cgroup.processes() == [pid])
        try expectRemoved(run, with: pid)
    }

    @Test(.enabled(if: CGroupHost.v1Memory, "SKIP: no usable cgroup v1 memory controller"))
    func oomKillOfTheStartedProcessIsReportedWithItsEvidence() throws {
        let v = try LimitedVictim.run(["malloc-grow"], limit: 32 << 20)
        #expect(v.result.verdict.cause == .oomKilled)
        #expect(v.result.evidence.after.oomKills == 1)
        let reports = try v.reports()
        try #require(reports.count == 1)
        let r = reports[0]
        #expect(r.kind == "oom_kill")
        #expect(r.process.pid == Int(v.pid))
        #expect(r.process.name == "victim-oom")
        #expect(r.sections["limit_bytes"]?.numberValue == Double(32 << 20))
        #expect((r.sections["peak_bytes"]?.numberValue ?? 0) > Double(30 << 20))
        #expect(r.sections["evidence"]?["counter"]?.stringValue == "memory.oom_control oom_kill")
        #expect(r.sections["evidence"]?["oom_kills_after"]?.numberValue == 1)
        #expect(r.sections["cgroup"]?["version"]?.numberValue == 1)
        // Written atomically with mode 0600.
        var st = stat()
        #expect(stat(v.result.reports[0], &st) == 0 && st.st_mode & 0o777 == 0o600)
        #expect(!FileManager.default.fileExists(atPath: "/sys/fs/cgroup/memory" + (r.sections["cgroup"]?["path"]?.stringValue ?? "/x")))
    }

    @Test(.enabled(if: CGroupHost.v1Memory, "SKIP: no usable cgroup v1 memory controller"))
    func breadcrumbsFromTheAgentSurviveTheKill() throws {
        // 256 KiB every 20 ms: 280 ms from one threshold to the next. At the
        // 100 ms default interval a monitor starved for 300 ms (load 10, two
        // test runs at once) missed the 90 % one; sampled every 20 ms, each
        // threshold has over a dozen chances.
        let v = try LimitedVictim.run(["slow-leak", "256K", "20"], limit: 24 << 20, agent: true,
                                      environment: ["FAULTLINE_MEMORY_PRESSURE": "off", "FAULTLINE_MEMORY_INTERVAL_MS": "20"])
        let r = try #require(try v.reports().first)
        let last = try #require(r.sections["last_breadcrumb"])
        #expect(last["threshold_percent"]?.numberValue == 95)
        #expect(last["pid"]?.numberValue == Double(v.pid))
        #expect((last["usage_bytes"]?.numberValue ?? 0) >= 0.95 * Double(24 << 20))
        #expect(r.sections["breadcrumbs"]?.arrayValue?.compactMap { $0["threshold_percent"]?.numberValue } == [50, 75, 90, 95])
        // The breadcrumb file went into the report and is gone.
        #expect(!FileManager.default.fileExists(atPath: v.reportDirectory + "/" + MemoryBreadcrumbs.fileName(pid: v.pid)))
    }

    @Test(.enabled(if: CGroupHost.v1Memory, "SKIP: no usable cgroup v1 memory controller"))
    func spikeBelowTheLimitLeavesNoReportAndNoBreadcrumbFile() throws {
        // 20 of 32 MiB held for 300 ms with a 10 ms monitor: the 50 % breadcrumb
        // is written, and the normal exit removes the file again.
        let v = try LimitedVictim.run(["spike", "20M", "300"], limit: 32 << 20, agent: true,
                                      environment: ["FAULTLINE_MEMORY_INTERVAL_MS": "10"])
        #expect(v.result.verdict.cause == .exited(code: 0))
        #expect(v.result.verdict.oomKills.isEmpty)
        #expect((v.result.evidence.after.peakBytes ?? 0) > 20 << 20)
        #expect(try FileManager.default.contentsOfDirectory(atPath: v.reportDirectory) == [])
    }

    /// A child the run's cleanup kills (a daemon the program left behind;
    /// likewise a timeout or the runner's kill) leaves no breadcrumb file:
    /// only an OOM-killed process's is used, folded into its report. Its
    /// 196 KiB file stayed in the report directory.
    @Test(.enabled(if: CGroupHost.v1Memory, "SKIP: no usable cgroup v1 memory controller"))
    func processesKilledByTheCleanupLeaveNoBreadcrumbFile() throws {
        let v = try LimitedVictim.run(["leave-child"], limit: 32 << 20, agent: true)
        #expect(v.stdout.contains("(breadcrumb file made)"))
        #expect(v.result.verdict.cause == .exited(code: 0))
        #expect(v.result.problems.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: v.reportDirectory) == [])
    }

    /// A FAULTLINE_MEMORY_PRESSURE level that cannot be registered (here:
    /// a user who may not write cgroup.event_control) is named on stderr;
    /// it was dropped without a word.
    @Test(.enabled(if: getuid() == 0 && CGroupHost.v1Memory && access("/usr/bin/setpriv", X_OK) == 0,
                   "SKIP: needs root (to run the victim as nobody with setpriv) and a cgroup v1 memory controller"))
    func pressureLevelThatCannotBeRegisteredIsNamedOnStderr() throws {
        let dir = try makeTemporaryDirectory("faultline-cgroup-test")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        chmod(dir, 0o777)
        // nobody runs copies: the build may sit in a folder only root can enter.
        let products = try ReachableProducts(["victim-oom", "libFaultlineAgentPreload.so"])
        let victim = products.path("victim-oom"), agent = products.path("libFaultlineAgentPreload.so")
        // The agent goes into the victim only (env after setpriv): in setpriv
        // itself its threads would break the privilege drop (a limit of
        // docs/design-notes.md).
        let env = ["LD_PRELOAD=\(agent)", "FAULTLINE_REPORT_DIR=\(dir)", "FAULTLINE_DETECTORS=memory",
                   "FAULTLINE_MEMORY_PRESSURE=low", "SWIFT_BACKTRACE=enable=no"]
        let err = try CloexecPipe()
        let pid = try ChildProcess.spawn("/usr/bin/setpriv", arguments: ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                                                         "/usr/bin/env"] + env + [victim, "spike", "4M", "50"],
                                         environment: [:], stderr: err.write.fileDescriptor)
        try err.write.close()
        let text = String(decoding: err.read.readDataToEndOfFile(), as: UTF8.self)
        #expect(ChildProcess.wait(pid) == .exited(0))
        let line = text.split(separator: "\n").first { $0.hasPrefix("faultline: FAULTLINE_MEMORY_PRESSURE=low ") }
        #expect(line?.contains("cgroup.event_control") == true, "stderr: \(text)")
        #expect(line?.contains("FAULTLINE_MEMORY_PRESSURE=off") == true, "stderr: \(text)")
    }

    @Test(.enabled(if: CGroupHost.v1Memory, "SKIP: no usable cgroup v1 memory controller"))
    func pressureBecomesAMemoryWarningReport() throws {
        // 20 MiB held under 32 MiB while a 64 MiB sparse file is read
        // through a mapping: reclaim inside the cgroup, and no OOM kill (its
        // pages are clean and need no disk, so a busy disk cannot make one).
        let v = try LimitedVictim.run(["pressure", "20M", "64M", "1500"], limit: 32 << 20, agent: true,
                                      environment: ["FAULTLINE_MEMORY_PRESSURE": "low"])
        #expect(v.result.verdict.cause == .exited(code: 0))
        #expect(v.result.verdict.oomKills.isEmpty)
        let warnings = try ReportStore.list(directory: v.reportDirectory).compactMap(\.report).filter { $0.kind == "memory_warning" }
        try #require(!warnings.isEmpty)
        #expect(warnings[0].process.pid == Int(v.pid))
        #expect(warnings[0].sections["pressure"]?["source"]?.stringValue == "memory.pressure_level")
        #expect(warnings[0].sections["pressure"]?["level"]?.stringValue == "low")
        #expect(warnings[0].sections["memory"]?["limit_bytes"]?.numberValue == Double(32 << 20))
    }
}

/// The CLI ends: `faultline exec --memory-limit` and an interrupted `faultline run`.
@Suite struct MemoryLimitCommandTests {
    @Test(.enabled(if: CGroupHost.memoryProblem == nil, "SKIP: no usable memory cgroup"))
    func execWithMemoryLimitReportsTheOOMKillAndExitsLikeTheProgram() throws {
        let dir = try makeTemporaryDirectory("faultline-cgroup-test")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try runProgram(try BuildProducts.path("faultline"),
                                 ["exec", "--memory-limit", "32M", "--report-dir", dir, "--", try BuildProducts.path("victim-oom"), "mmap-grow"])
        #expect(run.status == 137 && !run.signaled)
        #expect(run.stderr.contains("faultline: memory limit 32.0 MiB: killed by the kernel's OOM killer"))
        let reports = try ReportStore.list(directory: dir).compactMap(\.report)
        // Anonymous memory at the limit with no swap raises a v1 `medium`
        // pressure event just before the kill, in some runs: a true warning.
        let kills = reports.filter { $0.kind == "oom_kill" }
        #expect(kills.count == 1)
        #expect(reports.allSatisfy { $0.kind == "oom_kill" || $0.kind == "memory_warning" })
        #expect(kills.first?.sections["limit_bytes"]?.numberValue == Double(32 << 20))
        #expect(leftoverCgroups(prefix: "faultline-victim-oom-").isEmpty)
    }

    @Test func execRejectsABadSizeInOneLine() throws {
        let run = try runProgram(try BuildProducts.path("faultline"), ["exec", "--memory-limit", "lots", "--", "true"])
        #expect(run.status == 64)
        #expect(run.stderr == "faultline: --memory-limit 'lots' is not a size; write e.g. 64M, 1G or 4096\n")
    }

    /// A limit no program can run in is a bad value like a bad size (64,
    /// EX_USAGE), on any machine; it was 69 (EX_UNAVAILABLE), as for a
    /// machine without memory cgroups.
    @Test(arguments: [("0", 0), ("1", 1), ("1k", 1024), ("1023K", 1_047_552)])
    func execRejectsATooSmallLimitAsUsage(size: String, bytes: Int) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try runProgram(try BuildProducts.path("faultline"), ["exec", "--memory-limit", size, "--", "true"], directory: dir)
        #expect(run.status == 64)
        #expect(run.stderr == "faultline: --memory-limit \(size): memory limit \(bytes) bytes is too small; use at least 1M (the program and its libraries need some)\n")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/faultline-reports"))
    }

    @Test(.enabled(if: CGroupHost.memoryProblem == nil, "SKIP: no usable memory cgroup"))
    func interruptedRunRemovesItsCgroups() throws {
        let dir = try makeTemporaryDirectory("faultline-cgroup-test")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/Scenarios", withIntermediateDirectories: true)
        try """
            name: interrupt-me
            victim: victim-oom
            args: [sleep-forever]
            memory_limit: 32M
            timeout: 60s
            expect: {exit: {code: 0}}
            """.write(toFile: dir + "/Scenarios/interrupt-me.yaml", atomically: true, encoding: .utf8)
        let faultline = try BuildProducts.path("faultline")
        let build = (faultline as NSString).deletingLastPathComponent
        let devnull = FileHandle(forWritingAtPath: "/dev/null")!
        let pid = try ChildProcess.spawn(faultline, arguments: [faultline, "run", "--scenarios", dir + "/Scenarios", "--build-dir", build,
                                                                "--artifacts", dir + "/artifacts"],
                                         environment: ProcessInfo.processInfo.environment, stdout: devnull.fileDescriptor, directory: dir)
        // Wait until the victim sleeps inside its cgroup, alone: on v1 the
        // runner's spawning thread joins the cgroup for the spawn and leaves
        // right after, and cgroup.procs lists the runner while it is there.
        var cgroups: [String] = []
        for _ in 0..<1000 {
            cgroups = leftoverCgroups(prefix: "faultline-interrupt-me-\(pid)-")
            if let c = cgroups.first {
                let procs = CGroupDirectory(path: c, version: .v1).processes()
                if procs.count == 1 && procs[0] != pid { break }
            }
            usleep(10_000)
        }
        try #require(cgroups.count == 1, "cgroups named faultline-interrupt-me-\(pid)-*: \(cgroups)")
        let victims = CGroupDirectory(path: cgroups[0], version: .v1).processes()
        try #require(victims.count == 1, "inside \(cgroups[0]): \(victims), runner \(pid)")
        kill(pid, SIGINT)
        let status = ChildProcess.wait(pid)
        #expect(status == .exited(130))
        #expect(!FileManager.default.fileExists(atPath: cgroups[0]), "\(cgroups[0]) is left, holding \(CGroupDirectory(path: cgroups[0], version: .v1).processes())")
        // Killed: gone, or a zombie waiting for init. A thread leaves its
        // cgroup (so the rmdir above can succeed) a little before it turns
        // into a zombie, and on a loaded machine the test can look in
        // between: it is given a moment to finish dying.
        var state: Substring?
        for _ in 0..<500 {
            state = (try? String(contentsOfFile: "/proc/\(victims[0])/stat", encoding: .utf8))?.split(separator: ")").last?.split(separator: " ").first
            if state == nil || state == "Z" { break }
            usleep(10_000)
        }
        #expect(state == nil || state == "Z", "victim \(victims[0]) is still in state \(state ?? "?") 5 s after the runner ended with \(status)")
    }
}

/// Cgroups named `prefix…` under this process's memory cgroup.
func leftoverCgroups(prefix: String) -> [String] {
    guard let h = try? CGroupDiscovery.memory().get() else { return [] }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: h.ownDirectory)) ?? []
    return names.filter { $0.hasPrefix(prefix) }.map { h.ownDirectory + "/" + $0 }
}

@Suite struct CGroupV2Tests {
    @Test func memoryCgroupOnV2WithoutTheControllerFailsInOneLine() throws {
        guard let v2 = CGroupDiscovery.unified() else { return }
        if v2.hasMemoryController { return }  // the real v2 path runs in the test below
        #expect(throws: CGroupError.self) { try MemoryCGroup.create(name: "faultline-test-v2-\(getpid())", limit: 32 << 20, in: v2) }
        do {
            _ = try MemoryCGroup.create(name: "faultline-test-v2-\(getpid())", limit: 32 << 20, in: v2)
        } catch {
            #expect(error.description.contains("memory controller is not available"))
            #expect(!error.description.contains("\n"))
        }
        #expect(!FileManager.default.fileExists(atPath: v2.ownDirectory + "/faultline-test-v2-\(getpid())"))
    }

    @Test(.enabled(if: CGroupHost.v2Writable != nil, "SKIP: no writable cgroup v2 hierarchy"))
    func trampolineStartsTheProgramInsideAV2Cgroup() throws {
        let v2 = try #require(CGroupHost.v2Writable)
        let dir = try CGroupDirectory.create(parent: v2.ownDirectory, name: "faultline-test-tramp-\(getpid())", version: .v2)
        defer { try? dir.remove() }
        let faultline = try BuildProducts.path("faultline")
        let out = try CloexecPipe()
        // The program prints its own cgroup: it must already be inside.
        let pid = try ChildProcess.spawn(faultline, arguments: [faultline, "__cgroup-exec", dir.path, "--", "cat", "/proc/self/cgroup"],
                                         environment: ProcessInfo.processInfo.environment, stdout: out.write.fileDescriptor)
        try out.write.close()
        let text = String(decoding: out.read.readDataToEndOfFile(), as: UTF8.self)
        #expect(ChildProcess.wait(pid) == .exited(0))
        let relative = String(dir.path.dropFirst(v2.mount.mountPoint.count))
        #expect(text.split(separator: "\n").contains { $0 == "0::\(v2.mount.root == "/" ? "" : v2.mount.root)\(relative)" })
    }

    /// Starts `victim-oom sleep-forever` through the v2 trampoline in
    /// `target` (`dir` itself or a cgroup below it), waits until `dir`
    /// lists it, then removes `dir`: the process and every cgroup must go.
    private func v2RemoveKillsSleeper(in dir: CGroupDirectory, startedIn target: CGroupDirectory) throws {
        let victim = try BuildProducts.path("victim-oom")
        let faultline = try BuildProducts.path("faultline")
        let pid = try ChildProcess.spawn(faultline, arguments: [faultline, "__cgroup-exec", target.path, "--", victim, "sleep-forever"],
                                         environment: [:])
        let reaper = Thread { _ = ChildProcess.wait(pid) }
        reaper.start()
        // Wait for the trampoline to join.
        for _ in 0..<400 where !dir.processes().contains(pid) { usleep(5000) }
        #expect(dir.processes() == [pid])
        try dir.remove(timeout: 5)
        #expect(!dir.exists)
    }

    @Test(.enabled(if: CGroupHost.v2Writable != nil, "SKIP: no writable cgroup v2 hierarchy"))
    func v2RemoveKillsWhatIsInside() throws {
        let v2 = try #require(CGroupHost.v2Writable)
        let dir = try CGroupDirectory.create(parent: v2.ownDirectory, name: "faultline-test-kill-\(getpid())", version: .v2)
        try v2RemoveKillsSleeper(in: dir, startedIn: dir)
    }

    @Test(.enabled(if: CGroupHost.v2Writable != nil, "SKIP: no writable cgroup v2 hierarchy"))
    func v2RemoveTakesTheCgroupsAProgramMadeBelow() throws {
        let v2 = try #require(CGroupHost.v2Writable)
        let dir = try CGroupDirectory.create(parent: v2.ownDirectory, name: "faultline-test-nested-\(getpid())", version: .v2)
        let nested = try CGroupDirectory.create(parent: dir.path, name: "nested", version: .v2)
        try v2RemoveKillsSleeper(in: dir, startedIn: nested)
    }

    /// Runs `victim-oom pressure 20M 64M 2500` with the agent's memory
    /// detector (at most one warning, v1 pressure off, `extra` on top) in a
    /// new v2 cgroup `name` and under a 32 MiB v1 limit; returns its
    /// memory_warning reports and what it wrote on stderr. 2.5 s: the
    /// kernel first fires a PSI trigger one window (2 s) after it is made,
    /// however early the stall passes the threshold (seen at 2.02-2.06 s).
    private func pressureRunOnV2(_ name: String, env extra: [String: String] = [:]) throws -> (warnings: [Report], stderr: String) {
        let v2 = try #require(CGroupHost.v2Writable)
        let group = try CGroupDirectory.create(parent: v2.ownDirectory, name: "faultline-test-\(name)-\(getpid())", version: .v2)
        defer { try? group.remove() }
        let dir = try makeTemporaryDirectory("faultline-cgroup-test")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try MemoryLimitedRun.prepare(limit: 32 << 20, label: "test-\(name)")
        let faultline = try BuildProducts.path("faultline"), victim = try BuildProducts.path("victim-oom")
        let agent = try BuildProducts.path("libFaultlineAgentPreload.so")
        let argv = [faultline, "__cgroup-exec", "--env", "LD_PRELOAD=\(agent)", group.path, "--", victim, "pressure", "20M", "64M", "2500"]
        let env = ["FAULTLINE_REPORT_DIR": dir, "FAULTLINE_DETECTORS": "memory", "FAULTLINE_MEMORY_PRESSURE": "off",
                   "FAULTLINE_MEMORY_WARNINGS": "1", "SWIFT_BACKTRACE": "enable=no"].merging(extra) { $1 }
        let err = try CloexecPipe()
        try run.enterForSpawn()
        let pid = try ChildProcess.spawn(faultline, arguments: argv, environment: env, stderr: err.write.fileDescriptor)
        try run.attach(pid: pid)
        try err.write.close()
        let text = String(decoding: err.read.readDataToEndOfFile(), as: UTF8.self)
        #expect(ChildProcess.wait(pid) == .exited(0))
        #expect(run.finish(status: .exited(0)).verdict.oomKills.isEmpty)
        return (try ReportStore.list(directory: dir).compactMap(\.report).filter { $0.kind == "memory_warning" }, text)
    }

    /// The agent's v2 PSI trigger on the victim's own v2 cgroup, with the
    /// memory limit from v1 (this machine's hybrid layout): reclaim stalls
    /// are counted in the v2 cgroup's memory.pressure whatever holds the
    /// memory controller.
    @Test(.enabled(if: CGroupHost.v2Writable != nil && CGroupHost.v1Memory, "SKIP: needs a writable cgroup v2 hierarchy and a v1 memory controller"))
    func psiTriggerOnTheV2CgroupBecomesAMemoryWarning() throws {
        let warnings = try pressureRunOnV2("psi").warnings
        try #require(warnings.count == 1)
        #expect(warnings[0].sections["pressure"]?["source"]?.stringValue == "memory.pressure")
        #expect(warnings[0].sections["pressure"]?["trigger"]?.stringValue == "some 150000 2000000")
        #expect(warnings[0].sections["pressure"]?["psi"]?.stringValue?.hasPrefix("some avg10=") == true)
    }

    /// A FAULTLINE_MEMORY_PSI the kernel refuses (a window under 500 ms) is
    /// named on stderr and the default trigger used instead; it was
    /// dropped without a word, and no pressure was ever reported.
    @Test(.enabled(if: CGroupHost.v2Writable != nil && CGroupHost.v1Memory, "SKIP: needs a writable cgroup v2 hierarchy and a v1 memory controller"))
    func refusedPSITriggerIsNamedOnStderrAndTheDefaultUsed() throws {
        let (warnings, text) = try pressureRunOnV2("psi-refused", env: ["FAULTLINE_MEMORY_PSI": "some 1000 100000"])
        let line = text.split(separator: "\n").first { $0.hasPrefix("faultline: FAULTLINE_MEMORY_PSI=some 1000 100000 ") }
        #expect(line?.contains("using some 150000 2000000") == true, "stderr: \(text)")
        try #require(warnings.count == 1)
        #expect(warnings[0].sections["pressure"]?["trigger"]?.stringValue == "some 150000 2000000")
    }

    @Test(.enabled(if: (try? CGroupDiscovery.memory().get())?.version == .v2 && CGroupHost.memoryProblem == nil,
                   Comment(rawValue: CGroupHost.v2MemoryReason)))
    func oomKillOnV2ThroughTheTrampolineIsClassifiedAndReported() throws {
        let run = try MemoryLimitedRun.prepare(limit: 32 << 20, label: "test-v2", pollIntervalMs: 5)
        #expect(run.placement == .trampoline)
        let dir = try makeTemporaryDirectory("faultline-cgroup-test")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let faultline = try BuildProducts.path("faultline"), victim = try BuildProducts.path("victim-oom")
        let argv = run.trampolineCommand([victim, "malloc-grow"], faultline: faultline)
        let pid = try ChildProcess.spawn(argv[0], arguments: argv, environment: ["FAULTLINE_REPORT_DIR": dir])
        try run.attach(pid: pid)
        let end = ChildProcess.wait(pid)
        #expect(end == .signaled(9))
        let result = run.finish(status: .signaled(9))
        #expect(result.verdict.cause == .oomKilled)
        #expect(result.evidence.after.version == .v2)
        #expect(result.evidence.after.oomKills == 1)
        let report = try ReportStore.load(path: try #require(result.reports.first))
        #expect(report.sections["evidence"]?["counter"]?.stringValue == "memory.events oom_kill")
        #expect(report.process.pid == Int(pid))
    }
}

/// The calling thread's kernel id.
func currentTid() -> pid_t {
    let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
    return pid_t(link.split(separator: "/").last ?? "") ?? getpid()
}
