import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One program run inside a fresh memory cgroup, from creating the cgroup
/// to classifying the death and writing `oom_kill` reports. Used by the
/// scenario runner and by `faultline exec --memory-limit`.
///
/// Order: `prepare` → place the child (v1: `enterForSpawn`, spawn from the
/// same thread, `leaveAfterSpawn`; v2: spawn `trampolineCommand`) →
/// `attach(pid:)` → wait for it → `finish`.
public final class MemoryLimitedRun: Sendable {
    /// How the child gets into the cgroup before its first instruction.
    public enum Placement: Sendable {
        /// cgroup v1: the spawning thread sits in the cgroup while it spawns
        /// (v1 keeps cgroup membership per thread; a child starts in its
        /// creating thread's cgroup), so the program and even its dynamic
        /// loader run limited, and nothing is wrapped around it.
        case spawningThread
        /// cgroup v2 (membership is per process): spawn
        /// `faultline __cgroup-exec DIR -- COMMAND`, which joins and execs.
        case trampoline
    }

    /// The cgroup.
    public let cgroup: MemoryCGroup
    /// Its counters before anything ran in it.
    public let before: MemoryCounters
    /// The tracker's poll interval.
    public let pollIntervalMs: Double

    private struct State {
        var joined: (tid: pid_t, home: CGroupDirectory)?
        var tracker: CGroupProcessTracker?
        var pid: pid_t?
        var reportDirectory: String?
        var runnerSignal: Int32?
        var finished = false
        /// Set when `attach` had to move the program in after it started.
        var placedLate = false
    }
    private let state = Mutex(State())

    /// Environment variable (read from the child's environment at
    /// `attach`) that makes the runner SIGKILL the child after this many
    /// milliseconds: a kill that must not be taken for an OOM kill.
    public static let killAfterVariable = "FAULTLINE_RUNNER_KILL_AFTER_MS"

    private init(cgroup: MemoryCGroup, pollIntervalMs: Double) {
        self.cgroup = cgroup
        self.before = cgroup.counters()
        self.pollIntervalMs = pollIntervalMs
    }

    /// Creates the cgroup (`faultline-LABEL-PID-RANDOM` under this
    /// process's memory cgroup) with a limit of `limit` bytes.
    public static func prepare(
        limit: UInt64, label: String, pollIntervalMs: Double = CGroupProcessTracker.defaultIntervalMs
    ) throws(CGroupError) -> MemoryLimitedRun {
        let cgroup = try MemoryCGroup.create(name: cgroupName(label: label), limit: limit)
        return MemoryLimitedRun(cgroup: cgroup, pollIntervalMs: pollIntervalMs)
    }

    /// A fresh cgroup name for a run called `label`.
    static func cgroupName(label: String) -> String {
        let safe = String(label.map { $0.isLetter || $0.isNumber || "._-".contains($0) ? $0 : "_" }.prefix(96))
        return "faultline-\(safe.isEmpty ? "run" : safe)-\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
    }

    /// How this cgroup's children are placed.
    public var placement: Placement { cgroup.version == .v1 ? .spawningThread : .trampoline }

    /// cgroup v1: moves the calling thread into the cgroup, so what it
    /// spawns until `leaveAfterSpawn` starts inside. Memory the rest of
    /// this process allocates meanwhile is not charged there (v1 charges
    /// the thread-group leader's cgroup).
    public func enterForSpawn() throws(CGroupError) {
        guard cgroup.version == .v1 else {
            throw CGroupError("cgroup v2 keeps whole processes together; use the trampoline command instead")
        }
        let tid = currentThreadID()
        let path = CGroupMembership.ofThread(tid)?.first { $0.controllers.contains("memory") }?.path
        var home = cgroup.home
        if let path, case .success(let h) = CGroupDiscovery.memory(), let dir = h.directory(of: path) {
            home = CGroupDirectory(path: dir, version: .v1)
        }
        try cgroup.directory.addThread(tid)
        state.withLock { $0.joined = (tid, home) }
    }

    /// Moves the thread `enterForSpawn` moved back where it was.
    public func leaveAfterSpawn() {
        guard let joined = state.withLock({ s -> (tid: pid_t, home: CGroupDirectory)? in
            defer { s.joined = nil }
            return s.joined
        }) else { return }
        try? joined.home.addThread(joined.tid)
    }

    /// `command` run through the trampoline of `faultline` (the path of the
    /// `faultline` executable): it joins the cgroup and then execs.
    /// `environment` entries (NAME=VALUE) are set by the trampoline just
    /// before exec: pass the preload variables that way, so the agent is not
    /// loaded into the trampoline itself (its stderr capture would not
    /// survive the exec).
    public func trampolineCommand(_ command: [String], faultline: String, environment: [String] = []) -> [String] {
        [faultline, "__cgroup-exec"] + environment.flatMap { ["--env", $0] } + [cgroup.path, "--"] + command
    }

    /// Called right after spawning `pid`: makes sure it is inside (moving
    /// it now if it was not placed, which the runner's caller should avoid),
    /// starts the process tracker, and takes the report directory
    /// (`reportDirectory`, else the child's `FAULTLINE_REPORT_DIR`) and the
    /// runner kill request from its environment.
    public func attach(pid: pid_t, reportDirectory: String? = nil) throws(CGroupError) {
        leaveAfterSpawn()
        let environment = Self.environment(of: pid)
        let late = !cgroup.processes().contains(pid)
        if late { try cgroup.addProcess(pid) }
        let tracker = CGroupProcessTracker(cgroup: cgroup, initialCount: before.oomKills ?? 0, intervalMs: pollIntervalMs)
        state.withLock {
            $0.pid = pid
            $0.tracker = tracker
            $0.reportDirectory = reportDirectory ?? environment["FAULTLINE_REPORT_DIR"]
            // The trampoline joins before it execs: not in yet means not started yet.
            $0.placedLate = late && placement == .spawningThread
        }
        guard let text = environment[Self.killAfterVariable], !text.isEmpty else { return }
        guard let ms = Double(text), ms.isFinite, ms >= 0 else {
            // A typo used to be ignored without a word: the victim then ran
            // to its timeout and nothing said why it was never killed.
            let line = OneLine.escaped("faultline: \(Self.killAfterVariable)=\(text) is not a number of milliseconds (0 or more); the runner does not kill pid \(pid)") + "\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + ms / 1000) { [self] in
            self.killAsRunner(signal: SIGKILL)
        }
    }

    /// Sends `signal` to the run's process as the runner (so its death is
    /// not blamed on anyone else), if it is still inside the cgroup.
    public func killAsRunner(signal: Int32) {
        state.withLock { s in
            guard !s.finished, let pid = s.pid, cgroup.processes().contains(pid) else { return }
            s.runnerSignal = signal
            kill(pid, signal)
        }
    }

    /// Stops tracking, classifies how the process ended, writes an
    /// `oom_kill` report for every OOM kill into the report directory, and
    /// removes the cgroup (killing anything left inside).
    public func finish(status: WaitStatus?, timedOutAfter: Double? = nil) -> MemoryLimitedRunResult {
        let (tracker, pid, reportDirectory, runnerSignal, placedLate) = state.withLock { s in
            s.finished = true
            return (s.tracker, s.pid, s.reportDirectory, s.runnerSignal, s.placedLate)
        }
        let trace = tracker?.stop()
        var after = cgroup.counters()
        // A kill in a cgroup the program made below and removed again is
        // gone from the files but was seen by the tracker.
        if let seen = trace?.oomKills, let now = after.oomKills, seen > now { after.oomKills = seen }
        let evidence = DeathEvidence(
            pid: pid ?? 0, status: status, timedOutAfter: timedOutAfter, runnerSignal: runnerSignal,
            before: before, after: after, trace: trace)
        let verdict = DeathClassifier.classify(evidence)
        var result = MemoryLimitedRunResult(verdict: verdict, evidence: evidence, reports: [], problems: [])
        if placedLate { result.problems.append("the program was moved into the cgroup only after it had started") }
        for kill in verdict.oomKills {
            guard let dir = reportDirectory else {
                result.problems.append("no report directory (FAULTLINE_REPORT_DIR) for the oom_kill report")
                break
            }
            let crumbs = kill.pid.flatMap { MemoryBreadcrumbs.read(directory: dir, pid: $0) }
            let report = OOMKillReport.make(
                kill: kill, directChildPid: pid ?? 0, cgroup: cgroup, evidence: evidence, verdict: verdict,
                breadcrumbs: crumbs, nowUnixMs: CGroupProcessTracker.unixMs())
            do {
                result.reports.append(try ReportFileWriter.write(report, into: dir))
                // The report holds the breadcrumbs now.
                if let p = kill.pid, crumbs != nil { unlink(dir + "/" + MemoryBreadcrumbs.fileName(pid: p)) }
            } catch {
                result.problems.append("\(error)")
            }
        }
        do { try cgroup.remove() } catch { result.problems.append("\(error)") }
        if let dir = reportDirectory { Self.removeBreadcrumbs(in: dir, of: (trace?.processes.map(\.pid) ?? []) + [pid ?? 0]) }
        return result
    }

    /// Removes the breadcrumb files of the run's processes that are gone.
    /// Only an OOM-killed process's file is used (folded into its report);
    /// a process the cleanup killed (a daemon the program left behind), the
    /// timeout, the runner or someone else left its 196 KiB file behind.
    static func removeBreadcrumbs(in dir: String, of pids: [pid_t]) {
        for p in Set(pids) where p > 0 && (kill(p, 0) != 0 || ProcStat.read(p)?.state == "Z") {
            unlink(dir + "/" + MemoryBreadcrumbs.fileName(pid: p))
        }
    }

    /// The environment `pid` was started with (from /proc/PID/environ).
    /// posix_spawn returns as soon as the child's exec has replaced its
    /// memory, a moment before the kernel records where the new environment
    /// lies; until then the file reads empty, so it is read again for up to
    /// 100 ms.
    static func environment(of pid: pid_t) -> [String: String] {
        var data = Data()
        for _ in 0..<1000 {
            data = FileManager.default.contents(atPath: "/proc/\(pid)/environ") ?? Data()
            if !data.isEmpty || kill(pid, 0) != 0 { break }
            usleep(100)
        }
        var out: [String: String] = [:]
        for entry in data.split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            guard let eq = text.firstIndex(of: "=") else { continue }
            out[String(text[..<eq])] = String(text[text.index(after: eq)...])
        }
        return out
    }
}

/// What `MemoryLimitedRun.finish` found and did.
public struct MemoryLimitedRunResult: Sendable {
    /// The classification.
    public var verdict: DeathVerdict
    /// The evidence behind it.
    public var evidence: DeathEvidence
    /// Paths of the `oom_kill` reports written.
    public var reports: [String]
    /// Things that went wrong (a report not written, a cgroup not removed), one line each.
    public var problems: [String]

    /// One line for people: the verdict, the OOM kills, peak and limit.
    public var summary: String {
        let counters = evidence.after
        var parts: [String] = [verdict.cause.description]
        for k in verdict.oomKills {
            let who = k.pid.map { "pid \($0)\(k.name.map { " (\($0))" } ?? "")" } ?? "an unidentified process"
            parts.append("OOM kill of \(who)\(k.isDirectChild ? "" : ", a descendant")")
        }
        if verdict.oomKills.isEmpty {
            parts.append("no OOM kill (\(MemoryCounters.oomKillSource(counters.version)) stayed \(counters.oomKills.map(String.init) ?? "unreadable"))")
        }
        if let peak = counters.peakBytes ?? evidence.trace?.maxUsageBytes {
            parts.append("peak \(ByteCount.describe(peak)) of \(ByteCount.describe(counters.limitBytes ?? 0))")
        }
        return (parts + problems).joined(separator: "; ")
    }
}

/// Byte counts for people: `64.0 MiB`.
public enum ByteCount {
    /// `n` in B, KiB, MiB or GiB with one decimal.
    public static func describe(_ n: UInt64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var v = Double(n), i = 0
        while v >= 1024 && i < units.count - 1 { v /= 1024; i += 1 }
        return i == 0 ? "\(n) B" : String(format: "%.1f", v) + " " + units[i]
    }
}

/// The calling thread's kernel id.
func currentThreadID() -> pid_t {
    var buf = [CChar](repeating: 0, count: 64)
    let n = readlink("/proc/thread-self", &buf, buf.count - 1)
    guard n > 0 else { return getpid() }
    let text = String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return pid_t(text.split(separator: "/").last ?? "") ?? getpid()
}
