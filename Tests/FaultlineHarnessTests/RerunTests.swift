import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import FaultlineHarness

/// Reruns, expected failures, the time budget and the previous run's
/// failures, with real (shell) victims.
@Suite struct RerunTests {
    func options(_ dir: TemporaryDirectory, reruns: Int = 0) -> RunOptions {
        var o = RunOptions(buildDirectory: Products.build, artifactsRoot: dir.path + "/artifacts", jobs: 2)
        o.reruns = reruns
        return o
    }

    /// A victim that fails every other run (its count kept beside the suite):
    /// fails first, passes on the first rerun.
    func alternating(_ dir: TemporaryDirectory, name: String = "t.alternating") -> String {
        """
        name: \(name)
        victim: /bin/sh
        args: ["-c", "n=$(cat \(dir.path)/\(name).count 2>/dev/null || echo 0); echo $((n + 1)) > \(dir.path)/\(name).count; test $((n % 2)) -eq 1"]
        expect: {exit: {code: 0}}
        """
    }

    @Test func victimFailingEveryOtherRunIsFlakyWithTwoReruns() throws {
        let dir = try TemporaryDirectory()
        let result = SuiteRunner(options: options(dir, reruns: 2)).run(try scenarios([alternating(dir)]))
        let s = result.scenarios[0]
        #expect(s.verdict == .flaky)
        #expect(s.runs.map(\.verdict) == [.fail, .pass])
        #expect(s.runs.map(\.rerunIndex) == [nil, 1])
        #expect(s.reason?.hasPrefix("passed on rerun 1; first run: exit: expected") == true, "\(s.reason ?? "")")
        #expect(result.hasFailures(flakyOK: false))
        #expect(!result.hasFailures(flakyOK: true))
        // The failed run keeps its folder; the passing rerun's is deleted.
        #expect(s.runs[0].artifacts?.hasSuffix("/t.alternating") == true)
        #expect(s.runs[1].artifacts == nil)

        // Surefire's form: one <flakyFailure> per failed run, no <failure>.
        let doc = try XMLDocument(xmlString: JUnitWriter.render(result))
        let testcase = try #require(try doc.nodes(forXPath: "//testcase").first as? XMLElement)
        #expect(testcase.elements(forName: "failure").isEmpty)
        let flaky = testcase.elements(forName: "flakyFailure")
        #expect(flaky.count == 1)
        #expect(flaky.first?.elements(forName: "stackTrace").first?.stringValue?.contains("exit: expected") == true)
        let suite = try #require(try doc.nodes(forXPath: "/testsuites/testsuite").first as? XMLElement)
        #expect(suite.attribute(forName: "failures")?.stringValue == "0")
    }

    @Test func alwaysFailingVictimIsRerunAndStaysFail() throws {
        let dir = try TemporaryDirectory()
        let s = try scenarios(["name: t.broken\nvictim: /bin/sh\nargs: [\"-c\", \"exit 3\"]\nexpect: {exit: {code: 0}}\n"])
        let result = SuiteRunner(options: options(dir, reruns: 2)).run(s)
        #expect(result.scenarios[0].verdict == .fail)
        #expect(result.scenarios[0].runs.map(\.rerunIndex) == [nil, 1, 2])
        let folders = try FileManager.default.contentsOfDirectory(atPath: result.artifactsDirectory).sorted()
        #expect(folders == ["t.broken", "t.broken-rerun-1", "t.broken-rerun-2"])
        let doc = try XMLDocument(xmlString: JUnitWriter.render(result))
        let testcase = try #require(try doc.nodes(forXPath: "//testcase").first as? XMLElement)
        #expect(testcase.elements(forName: "failure").count == 1)
        #expect(testcase.elements(forName: "rerunFailure").count == 2)
    }

    @Test func withoutRerunsTheSameVictimFails() throws {
        let dir = try TemporaryDirectory()
        let result = SuiteRunner(options: options(dir)).run(try scenarios([alternating(dir)]))
        #expect(result.scenarios[0].verdict == .fail)
        #expect(result.scenarios[0].runs.count == 1)
    }

    @Test func xfailGivesXFailAndXPassWhenFixed() throws {
        let dir = try TemporaryDirectory()
        let s = try scenarios([
            "name: t.known-gap\nvictim: /bin/sh\nargs: [\"-c\", \"exit 1\"]\nxfail: the detector misses this yet\nexpect: {exit: {code: 0}}\n",
            "name: t.fixed-gap\nvictim: /bin/sh\nargs: [\"-c\", \"exit 0\"]\nxfail: the detector misses this yet\nexpect: {exit: {code: 0}}\n",
        ])
        let result = SuiteRunner(options: options(dir, reruns: 2)).run(s)
        #expect(result.scenarios.map(\.verdict) == [.xfail, .xpass])
        // An expected failure is not rerun.
        #expect(result.scenarios[0].runs.count == 1)
        #expect(result.scenarios[0].reason?.hasPrefix("xfail: the detector misses this yet; exit: expected") == true)
        #expect(result.scenarios[1].reason?.contains("remove xfail") == true)
        #expect(!ResultsDocument(ScenarioResultsOnly(result, 0)).hasFailures(flakyOK: false))
        #expect(result.hasFailures(flakyOK: true))
        let text = ConsoleSummary.render(result)
        #expect(text.contains("2 scenarios: 0 passed, 0 failed, 0 skipped, 1 xfailed, 1 xpassed in"), "\(text)")
        let xml = try XMLDocument(xmlString: JUnitWriter.render(result))
        let cases = try xml.nodes(forXPath: "//testcase").compactMap { $0 as? XMLElement }
        #expect(cases[0].elements(forName: "skipped").first?.attribute(forName: "type")?.stringValue == "XFAIL")
        #expect(cases[1].elements(forName: "failure").first?.attribute(forName: "type")?.stringValue == "XPASS")
    }

    @Test func xfailMustGiveAReason() {
        #expect(throws: ScenarioLoadError.self) {
            try ScenarioLoader().parse(yaml: "name: t.x\nvictim: v\nxfail: ''\nexpect: {no_reports: true}\n", file: "t.yaml")
        }
    }

    @Test func maxTimeLeavesTheRestNotRun() throws {
        let dir = try TemporaryDirectory()
        var o = options(dir)
        o.jobs = 1
        o.maxTime = 0.3
        let s = try scenarios([
            "name: t.slow\nvictim: /bin/sh\nargs: [\"-c\", \"sleep 0.6\"]\nexpect: {exit: {code: 0}}\n",
            "name: t.after-a\nvictim: /bin/true\nexpect: {exit: {code: 0}}\n",
            "name: t.after-b\nvictim: /bin/true\nexpect: {exit: {code: 0}}\n",
        ])
        let result = SuiteRunner(options: o).run(s)
        #expect(result.scenarios.map(\.verdict) == [.pass, .notRun, .notRun])
        #expect(result.scenarios[1].reason == "not run: --max-time 300ms was used up (2 of 3 runs never started)")
        #expect(result.failed)
        let doc = ResultsDocument(result)
        #expect(doc.totals["not_run"] == 2)
    }

    @Test func lastFailedRunsTheTwoThatFailed() throws {
        let dir = try TemporaryDirectory()
        let s = try scenarios([
            "name: t.ok-1\nvictim: /bin/true\nexpect: {exit: {code: 0}}\n",
            "name: t.bad-1\nvictim: /bin/false\nexpect: {exit: {code: 0}}\n",
            "name: t.ok-2\nvictim: /bin/true\nexpect: {exit: {code: 0}}\n",
            "name: t.bad-2\nvictim: /bin/false\nexpect: {exit: {code: 0}}\n",
        ])
        let root = dir.path + "/artifacts"
        let selection = { (lastFailed: Bool, order: RunSelection.Order) in
            RunSelection(lastFailed: lastFailed, order: order, timingsPath: root + "/timings.json", previousRunPath: PreviousRun.path(artifactsRoot: root))
        }
        // No previous run: everything, with a note.
        let first = try selection(true, .suite).plan(s)
        #expect(first.scenarios.count == 4)
        #expect(first.notes.first?.contains("no previous run") == true)
        let result = SuiteRunner(options: options(dir)).run(first.scenarios)
        #expect(PreviousRun.record(ResultsDocument(result), artifactsRoot: root) == nil)

        let again = try selection(true, .suite).plan(s)
        #expect(again.scenarios.map(\.name) == ["t.bad-1", "t.bad-2"])
        #expect(again.notes.isEmpty)
        let rerun = SuiteRunner(options: options(dir)).run(again.scenarios)
        #expect(rerun.scenarios.map(\.scenario.name) == ["t.bad-1", "t.bad-2"])
        #expect(try selection(false, .failedFirst).plan(s).scenarios.map(\.name) == ["t.bad-1", "t.bad-2", "t.ok-1", "t.ok-2"])
    }
}

/// `result` with only its scenario at `index`.
private func ScenarioResultsOnly(_ result: SuiteResult, _ index: Int) -> SuiteResult {
    var r = result
    r.scenarios = [result.scenarios[index]]
    return r
}
