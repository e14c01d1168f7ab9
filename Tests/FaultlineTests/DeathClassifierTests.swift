import Faultline
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Every way a run can end, each produced for real inside a memory cgroup
/// and classified from the wait status, the OOM counter and the tracker.
@Suite struct DeathClassifierTests {
    static let skip = "SKIP: no usable memory cgroup: \(CGroupHost.memoryProblem ?? "")"

    @Test(.enabled(if: CGroupHost.memoryProblem == nil, Comment(rawValue: skip)))
    func exitCode() throws {
        let v = try LimitedVictim.run(["no-such-command"], limit: 32 << 20)
        #expect(v.result.verdict.cause == .exited(code: 2))
        #expect(v.result.verdict.oomKills.isEmpty)
        #expect(v.result.reports.isEmpty)
    }

    @Test(.enabled(if: CGroupHost.memoryProblem == nil, Comment(rawValue: skip)))
    func crashBySignal() throws {
        let v = try LimitedVictim.run(["null-deref"], limit: 32 << 20, program: "victim-c")
        #expect(v.result.verdict.cause == .crashed(signal: SIGSEGV))
        #expect(v.result.verdict.oomKills.isEmpty)
    }

    @Test(.enabled(if: CGroupHost.memoryProblem == nil, Comment(rawValue: skip)))
    func oomKill() throws {
        let v = try LimitedVictim.run(["mmap-grow"], limit: 32 << 20)
        #expect(v.result.verdict.cause == .oomKilled)
        try #require(v.result.verdict.oomKills.count == 1)
        #expect(v.result.verdict.oomKills[0].pid == v.pid)
        #expect(v.result.verdict.oomKills[0].isDirectChild)
        #expect(v.result.reports.count == 1)
    }

    @Test(.enabled(if: CGroupHost.memoryProblem == nil, Comment(rawValue: skip)))
    func sigkillFromSomeoneElseIsNotAnOOMKill() throws {
        let v = try LimitedVictim.run(["sleep-forever"], limit: 32 << 20, whileRunning: { _, pid in
            usleep(100_000)
            kill(pid, SIGKILL)  // this test is "someone else"
        })
        #expect(v.result.verdict.cause == .killed(signal: SIGKILL, by: .someoneElse))
        #expect(v.result.verdict.oomKills.isEmpty)
        #expect(v.result.evidence.after.oomKills == 0)
        #expect(v.result.reports.isEmpty)
    }

    @Test(.enabled(if: CGroupHost.memoryProblem == nil, Comment(rawValue: skip)))
    func sigkillFromTheRunner() throws {
        let v = try LimitedVictim.run(["sleep-forever"], limit: 32 << 20, whileRunning: { run, _ in
            usleep(100_000)
            run.killAsRunner(signal: SIGKILL)
        })
        #expect(v.result.verdict.cause == .killed(signal: SIGKILL, by: .runner))
        #expect(v.result.verdict.oomKills.isEmpty)
        #expect(v.result.reports.isEmpty)
    }

    @Test(.enabled(if: CGroupHost.memoryProblem == nil, Comment(rawValue: skip)))
    func runnerKillRequestedThroughTheEnvironment() throws {
        let v = try LimitedVictim.run(["sleep-forever"], limit: 32 << 20,
                                      environment: [MemoryLimitedRun.killAfterVariable: "150"])
        #expect(v.result.verdict.cause == .killed(signal: SIGKILL, by: .runner))
        #expect(v.result.evidence.runnerSignal == SIGKILL)
    }

    @Test(.enabled(if: CGroupHost.memoryProblem == nil, Comment(rawValue: skip)))
    func timedOut() throws {
        let v = try LimitedVictim.run(["sleep-forever"], limit: 32 << 20, whileRunning: { _, pid in
            usleep(100_000)
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
        }, timedOut: 0.1)
        #expect(v.result.verdict.cause == .timedOut(seconds: 0.1))
        #expect(v.result.verdict.oomKills.isEmpty)
    }

    @Test(.enabled(if: CGroupHost.memoryProblem == nil, Comment(rawValue: skip)))
    func oomKillOfAChildIsPinnedOnTheChild() throws {
        let v = try LimitedVictim.run(["child-oom"], limit: 32 << 20)
        // "victim-oom: child 1234 is growing"
        let line = try #require(v.stdout.split(separator: "\n").first { $0.hasSuffix("is growing") })
        let child = try #require(pid_t(line.split(separator: " ")[2]))
        #expect(v.stdout.contains("child \(child) killed by signal 9"))
        #expect(v.result.verdict.cause == .exited(code: 0))
        try #require(v.result.verdict.oomKills.count == 1)
        let kill = v.result.verdict.oomKills[0]
        #expect(kill.pid == child)
        #expect(kill.ppid == v.pid)
        #expect(!kill.isDirectChild)
        #expect(kill.name == "oom-child")
        let report = try #require(try v.reports().first)
        #expect(report.process.pid == Int(child))
        #expect(report.process.name == "oom-child")
        #expect(report.sections["evidence"]?["direct_child"] == .bool(false))
    }

    /// Two kills counted, one direct and one descendant seen leaving after
    /// the rise, one unexplained: the rules pin what they can and say so.
    @Test func countsMoreKillsThanProcessesSeenLeaving() {
        let before = MemoryCounters(version: .v1, oomKills: 0)
        let after = MemoryCounters(version: .v1, oomKills: 3)
        var trace = CGroupProcessTracker.Trace(intervalMs: 10)
        trace.rises = [.init(poll: 5, ms: 50, unixMs: 1000, from: 0, to: 3)]
        trace.processes = [
            TrackedProcess(pid: 10, ppid: 1, name: "main", executable: nil, firstSeenPoll: 1, lastSeenPoll: 5,
                           vanishedPoll: 6, vanishedMs: 60, zombieStatus: nil),
            TrackedProcess(pid: 11, ppid: 10, name: "early", executable: nil, firstSeenPoll: 1, lastSeenPoll: 2,
                           vanishedPoll: 3, vanishedMs: 30, zombieStatus: .exited(0)),
            TrackedProcess(pid: 12, ppid: 10, name: "worker", executable: nil, firstSeenPoll: 1, lastSeenPoll: 5,
                           vanishedPoll: 6, vanishedMs: 60, zombieStatus: .signaled(9)),
        ]
        let v = DeathClassifier.classify(DeathEvidence(pid: 10, status: .signaled(9), before: before, after: after, trace: trace))
        #expect(v.cause == .oomKilled)
        #expect(v.oomKills.map(\.pid) == [10, 12, nil])
        #expect(v.oomKills[1].method.contains("zombie"))
    }
}
