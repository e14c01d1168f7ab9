import Faultline
import Foundation
import Testing
@testable import FaultlineHarness

/// A victim-c run under the preloaded agent, as the checker sees it.
struct VictimRun {
    let observation: Observation
    let reportDirectory: String
    let directory: TemporaryDirectory

    /// Runs `victim-c ARGS` with the agent preloaded (FAULTLINE_DETECTORS=crash).
    static func victimC(_ args: [String]) throws -> VictimRun {
        let victim = try Products.require("victim-c")
        let agent = try Products.require(BuildDirectory.agentLibrary)
        let dir = try TemporaryDirectory()
        let reports = dir.path + "/reports"
        try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: true)
        // Spawned the way the runner does (VictimProcess: signal mask and
        // dispositions reset), not with Foundation.Process, whose children
        // inherit the test process's blocked signals.
        var env = ProcessInfo.processInfo.environment
        env["LD_PRELOAD"] = agent
        env["FAULTLINE_REPORT_DIR"] = reports
        env["FAULTLINE_DETECTORS"] = "crash"
        env["FAULTLINE_CAPTURE_STDERR"] = "1"
        env["SWIFT_BACKTRACE"] = "enable=no"
        let child = try VictimProcess.spawn(VictimProcess.Request(
            executable: victim, arguments: [victim] + args, environment: env, workingDirectory: dir.path,
            stdoutPath: dir.path + "/stdout", stderrPath: dir.path + "/stderr"))
        let exit = child.wait(timeout: 60)
        let observation = Observation(
            exit: exit, stdout: ScenarioExecution.read(dir.path + "/stdout"), stderr: ScenarioExecution.read(dir.path + "/stderr"),
            reports: try ReportStore.list(directory: reports), pid: child.pid)
        return VictimRun(observation: observation, reportDirectory: reports, directory: dir)
    }
}

/// Parses the `expect:` part of a scenario.
func expectation(_ yaml: String) throws -> ScenarioExpectation {
    let indented = yaml.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
    return try ScenarioLoader().parse(yaml: "name: t\nvictim: v\nexpect:\n" + indented + "\n", file: "t.yaml").expect
}

/// The expectation checker on real reports from victim-c under the agent.
@Suite struct CheckerTests {
    let checker = ExpectationChecker()

    @Test func nullDerefPassesItsExpectation() throws {
        let run = try VictimRun.victimC(["null-deref"])
        let e = try expectation("""
            exit: {signal: SIGSEGV}
            reports:
              - kind: crash
                signal: SIGSEGV
                code: SEGV_MAPERR
                thread: victim-c
                frames: [victim_null_deref, main]
                match:
                  signal.fault_address: "0x0"
                  signal.number: 11
                  crashed_thread.main: true
                  recrash: null
                  "crashed_thread.frames[0].symbol.function": victim_null_deref
                max_detection_ms: 60000
            stderr_contains: ["victim: dereferencing NULL"]
            """)
        #expect(checker.check(e, against: run.observation).map(\.description) == [])
    }

    @Test func wrongExpectationsExplainExpectedAndFound() throws {
        let run = try VictimRun.victimC(["null-deref"])
        let tid = try #require(run.observation.reports.first?.result.get().crashedThread?.tid)
        let e = try expectation("""
            exit: {signal: SIGABRT}
            reports:
              - kind: hang
                signal: SIGABRT
                code: SEGV_ACCERR
                thread: worker-7
                match:
                  recrash.stage: "running"
                  signal.number: 6
                max_detection_ms: 0.001
            stderr_contains: ["no such line"]
            stdout_contains: ["nothing"]
            stderr_lacks: ["dereferencing NULL", "never said"]
            """)
        let failures = checker.check(e, against: run.observation).map(\.description)
        #expect(failures.contains("exit: expected SIGABRT, found SIGSEGV"))
        #expect(failures.contains("kind: expected hang, found crash"))
        #expect(failures.contains("signal: expected SIGABRT, found SIGSEGV"))
        #expect(failures.contains("code: expected SEGV_ACCERR, found SEGV_MAPERR"))
        #expect(failures.contains("thread: expected 'worker-7', found 'victim-c' (tid \(tid))"))
        #expect(failures.contains("match recrash.stage: expected \"running\", found nothing at recrash"))
        #expect(failures.contains("match signal.number: expected 6, found 11"))
        #expect(failures.contains { $0.hasPrefix("max_detection_ms: expected at most 0.001 ms, found ") })
        #expect(failures.contains { $0.hasPrefix("stderr_contains: expected \"no such line\", found ") })
        #expect(failures.contains("stdout_contains: expected \"nothing\", found nothing (the stream was empty)"))
        #expect(failures.contains("stderr_lacks: expected no \"dereferencing NULL\", found \"victim: dereferencing NULL\""))
        #expect(failures.count == 11)
    }

    @Test func framesMustAppearInOrder() throws {
        let run = try VictimRun.victimC(["null-deref"])
        let missing = checker.check(try expectation("reports: [{frames: [victim_abort]}]"), against: run.observation)
        #expect(missing.count == 1)
        #expect(missing.first?.description.hasPrefix("frames: expected victim_abort in crashed thread, found [victim_null_deref, victim_run_case_or, victim_run_case, main, ") == true)
        let reversed = checker.check(try expectation("reports: [{frames: [main, victim_null_deref]}]"), against: run.observation)
        #expect(reversed.first?.description.hasPrefix("frames: expected victim_null_deref after main in crashed thread, found [") == true)
        let noSymbolizer = ExpectationChecker(symbolicator: Symbolicator(symbolizerPath: "/nonexistent/llvm-symbolizer"))
        let unresolved = noSymbolizer.check(try expectation("reports: [{frames: [victim_null_deref]}]"), against: run.observation)
        #expect(unresolved.count == 1)
        #expect(unresolved.first?.check == "frames")
    }

    @Test func reportsAreMatchedOneToOne() throws {
        let run = try VictimRun.victimC(["null-deref"])
        let two = checker.check(try expectation("reports: [{kind: crash}, {kind: crash}]"), against: run.observation).map(\.description)
        #expect(two.count == 1)
        #expect(two.first?.hasPrefix("reports: expected 2, found 1: crash SIGSEGV (crash-") == true)
        let none = checker.check(try expectation("no_reports: true"), against: run.observation).map(\.description)
        #expect(none.count == 1)
        #expect(none.first?.hasPrefix("reports: expected 0, found 1: crash SIGSEGV") == true)
        let exit = try VictimRun.victimC(["exit", "0"])
        let clean = checker.check(try expectation("exit: {code: 0}\nno_reports: true\nstdout_contains: [\"victim: exiting\"]"), against: exit.observation)
        #expect(clean == [])
        let wanted = checker.check(try expectation("exit: {code: 3}\nreports: [{kind: crash}]"), against: exit.observation).map(\.description)
        #expect(wanted == ["exit: expected exit code 3, found exit code 0", "reports: expected 1, found none"])
    }

    @Test func threadsAndContainsMatching() throws {
        let run = try VictimRun.victimC(["crash-with-threads"])
        let ok = try expectation("""
            reports:
              - thread: victim-c
                match:
                  threads: [{name: idler-2, captured: true, "frames[0].pc": "0x"}, {name: idler-0}, {name: idler-1}]
            """)
        #expect(checker.check(ok, against: run.observation) == [])
        let bad = try expectation("reports: [{match: {threads: [{name: idler-0}, {name: idler-9}]}}]")
        let failures = checker.check(bad, against: run.observation).map(\.description)
        #expect(failures.count == 1)
        #expect(failures.first?.hasPrefix("match threads: expected [{name: \"idler-0\"}, {name: \"idler-9\"}], found no element matching {name: \"idler-9\"} in [") == true)

        let worker = try VictimRun.victimC(["thread-crash"])
        let onWorker = try expectation("reports: [{thread: worker-7, frames: [victim_null_deref, crash_thread]}]")
        #expect(checker.check(onWorker, against: worker.observation) == [])
    }

    @Test func crashInHandlerHasRecrashSection() throws {
        let run = try VictimRun.victimC(["crash-in-handler"])
        let e = try expectation("""
            reports:
              - match: {recrash.stage: "running the crash callback", recrash.partial_report: '{"schema":"faultline.report"'}
            """)
        #expect(checker.check(e, against: run.observation) == [])
    }

    @Test func badReportFileIsAFailureWithTheStoreError() throws {
        let run = try VictimRun.victimC(["exit", "0"])
        let bad = run.reportDirectory + "/crash-broken.json"
        try #"{"schema":"faultline.report","schema_version":1,"id":"#.write(toFile: bad, atomically: true, encoding: .utf8)
        var observation = run.observation
        observation.reports = try ReportStore.list(directory: run.reportDirectory)
        let storeError = try #require(observation.reports.first.flatMap { entry -> String? in
            if case .failure(let e) = entry.result { return e.description }
            return nil
        })
        let failures = checker.check(try expectation("exit: {code: 0}"), against: observation).map(\.description)
        #expect(failures == ["report file: expected a valid report, found \(storeError)"])
        #expect(storeError.hasPrefix(bad))
    }

    @Test func timeoutIsTheFirstReason() throws {
        let failures = checker.check(try expectation("exit: {code: 0}"), against: Observation(exit: .timedOut(seconds: 1.5)))
        #expect(failures.map { $0.description } == ["timeout: expected the victim to end within 1.5s, found timed out after 1.5s; its process group was killed"])
    }
}
