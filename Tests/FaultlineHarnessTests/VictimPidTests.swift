import Faultline
import Foundation
import Testing
@testable import FaultlineHarness

/// `$victim_pid` in a `match` value: the pid of the process the runner
/// started, which a scenario cannot write as a number.
@Suite struct VictimPidTests {
    /// The `match` of the only report expectation in `yaml` (the expect part).
    private func match(_ yaml: String) throws -> [PathMatch] {
        try #require(try expectation(yaml).reports?.first).match
    }

    private func loadError(_ yaml: String) -> String? {
        do {
            _ = try ScenarioLoader().parse(yaml: yaml, file: "s.yaml")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func plainIsTheVictimsPidQuotedIsText() throws {
        let m = try match("""
            reports:
              - match:
                  signal.sender_pid: $victim_pid
                  process.name: "$victim_pid"
                  threads: [{tid: $victim_pid}]
            """)
        #expect(m.map(\.expected.description) == ["$victim_pid", "\"$victim_pid\"", "[{tid: $victim_pid}]"])
        guard case .victimPid = m[0].expected else { Issue.record("plain $victim_pid is \(m[0].expected)"); return }
        guard case .string("$victim_pid") = m[1].expected else { Issue.record("quoted $victim_pid is \(m[1].expected)"); return }
        #expect(m[2].expected.mentionsVictimPid)
        #expect(!m[1].expected.mentionsVictimPid)
    }

    @Test func anUnknownDollarValueIsOneLineNamingIt() {
        #expect(loadError("name: a\nvictim: v\nexpect:\n  reports:\n    - match: {signal.sender_pid: $victimpid}\n")
            == "s.yaml:5: unknown value '$victimpid' in match; the one value a run fills in is $victim_pid "
            + "(the pid of the process the runner started); to match the text, quote it: \"$victimpid\"")
        #expect(loadError("name: a\nvictim: v\nexpect:\n  reports:\n    - match:\n        threads: [{tid: $pid}]\n")?
            .hasPrefix("s.yaml:6: unknown value '$pid' in match;") == true)
    }

    /// Anywhere but a match value the pid would not be filled in: a plain
    /// `$victim_pid` there is refused, a quoted one is the text.
    @Test func outsideMatchItIsRefusedUnlessQuoted() throws {
        #expect(loadError("name: a\nvictim: v\nargs: [kill, $victim_pid]\nexpect: {no_reports: true}\n")
            == "s.yaml:3: each entry of args is $victim_pid, which stands for the victim's pid only in a match value "
            + "(expect.reports[].match); quote it (\"$victim_pid\") to mean the text")
        #expect(loadError("name: a\nvictim: v\nexpect:\n  stderr_contains: [$victim_pid]\n")?.hasPrefix("s.yaml:4: each entry of stderr_contains is $victim_pid") == true)
        #expect(loadError("name: a\nvictim: v\nenv: {PID: $victim_pid}\nexpect: {no_reports: true}\n")?.hasPrefix("s.yaml:3: env.PID is $victim_pid") == true)
        let quoted = try ScenarioLoader().parse(yaml: "name: a\nvictim: v\nargs: [\"$victim_pid\"]\nexpect: {no_reports: true}\n", file: "s.yaml")
        #expect(quoted.args == ["$victim_pid"])
    }

    /// victim-c's abort() raises SIGABRT with tgkill: the report's sender
    /// is the victim itself, its parent is this test process.
    @Test func equalsTheVictimsPidAndNothingElse() throws {
        let run = try VictimRun.victimC(["abort"])
        let pid = try #require(run.observation.pid)
        let checker = ExpectationChecker()
        let good = try expectation("""
            reports:
              - match:
                  signal.sender_pid: $victim_pid
                  process.pid: $victim_pid
                  process: {pid: $victim_pid, name: victim-c}
            """)
        #expect(checker.check(good, against: run.observation).map(\.description) == [])

        let wrong = try expectation("reports: [{match: {process.ppid: $victim_pid, signal.code_name: $victim_pid}}]")
        let failures = checker.check(wrong, against: run.observation).map(\.description)
        #expect(failures.contains("match process.ppid: expected $victim_pid (= \(pid)), found \(getpid())"), "\(failures)")
        #expect(failures.contains("match signal.code_name: expected $victim_pid (= \(pid)), found \"SI_TKILL\""), "\(failures)")

        // Without a pid (an observation made by hand) nothing equals it.
        var unknown = run.observation
        unknown.pid = nil
        let noPid = checker.check(good, against: unknown).map(\.description)
        #expect(noPid.contains("match signal.sender_pid: expected $victim_pid, found \(pid) (the victim's pid is not known)"), "\(noPid)")
    }
}
