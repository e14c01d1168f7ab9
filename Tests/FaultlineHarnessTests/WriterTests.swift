import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import FaultlineHarness

/// JUnit XML and JSON results parse and carry every verdict.
@Suite struct WriterTests {
    func record(_ name: String, _ verdict: Verdict, failures: [CheckFailure] = [], skip: String? = nil, repeatIndex: Int? = nil) -> RunRecord {
        RunRecord(scenario: name, repeatIndex: repeatIndex, verdict: verdict, durationSeconds: 0.25, exit: verdict == .skip ? nil : "SIGSEGV",
                  failures: failures, skipReason: skip, artifacts: verdict == .pass ? nil : "/tmp/a/\(name)", command: ["victim-c", "x"],
                  pid: 42, reports: [], memoryLimit: nil)
    }

    func sample() throws -> SuiteResult {
        let s = try scenarios([
            "name: crash.ok\nvictim: v\nexpect: {no_reports: true}\n",
            "name: crash.bad\nvictim: v\nexpect: {no_reports: true}\n",
            "name: heap.skip\nvictim: v\nexpect: {no_reports: true}\n",
            "name: hang.flaky\nvictim: v\nexpect: {no_reports: true}\n",
        ])
        let bad = CheckFailure("match user.note", expected: "\"<a & 'b'>\"", found: "\"\u{1}ctl \"quoted\"\"")
        return SuiteResult(
            scenarios: [
                ScenarioResult(scenario: s[0], runs: [record("crash.ok", .pass)]),
                ScenarioResult(scenario: s[1], runs: [record("crash.bad", .fail, failures: [bad])]),
                ScenarioResult(scenario: s[2], runs: [record("heap.skip", .skip, skip: "requires root: needs root")]),
                ScenarioResult(scenario: s[3], runs: [record("hang.flaky", .pass, repeatIndex: 1),
                                                      record("hang.flaky", .fail, failures: [bad], repeatIndex: 2)]),
            ],
            wallSeconds: 1.5, startedAt: "2026-01-01T00:00:00Z", artifactsDirectory: "/tmp/a")
    }

    @Test func junitParsesWithFailuresAndSkips() throws {
        let xml = JUnitWriter.render(try sample())
        let doc = try XMLDocument(xmlString: xml)
        let suite = try #require(try doc.nodes(forXPath: "/testsuites/testsuite").first as? XMLElement)
        #expect(suite.attribute(forName: "tests")?.stringValue == "4")
        #expect(suite.attribute(forName: "failures")?.stringValue == "2")
        #expect(suite.attribute(forName: "skipped")?.stringValue == "1")
        let cases = try doc.nodes(forXPath: "//testcase").compactMap { $0 as? XMLElement }
        #expect(cases.map { $0.attribute(forName: "name")?.stringValue } == ["crash.ok", "crash.bad", "heap.skip", "hang.flaky"])
        #expect(cases[0].children == nil || cases[0].children?.isEmpty == true)
        let failure = try #require(cases[1].elements(forName: "failure").first)
        #expect(failure.attribute(forName: "message")?.stringValue == "match user.note: expected \"<a & 'b'>\", found \"ctl \"quoted\"\"")
        #expect(failure.stringValue?.contains("artifacts: /tmp/a/crash.bad") == true)
        let skipped = try #require(cases[2].elements(forName: "skipped").first)
        #expect(skipped.attribute(forName: "message")?.stringValue == "requires root: needs root")
        let flaky = try #require(cases[3].elements(forName: "failure").first)
        #expect(flaky.attribute(forName: "type")?.stringValue == "FLAKY")
        #expect(flaky.attribute(forName: "message")?.stringValue?.hasPrefix("passed 1/2; ") == true)
    }

    @Test func jsonParsesWithVerdictsAndRuns() throws {
        let data = try JSONResultsWriter.render(try sample())
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(root["schema"] as? String == "faultline.run-results")
        #expect(root["schema_version"] as? Int == 2)
        let totals = try #require(root["totals"] as? [String: Int])
        #expect(totals == ["scenarios": 4, "pass": 1, "fail": 1, "skip": 1, "flaky": 1, "xfail": 0, "xpass": 0, "not_run": 0])
        #expect(root["suite"] as? [String] == ["crash.ok", "crash.bad", "heap.skip", "hang.flaky"])
        let entries = try #require(root["scenarios"] as? [[String: Any]])
        #expect(entries.map { $0["verdict"] as? String } == ["PASS", "FAIL", "SKIP", "FLAKY"])
        #expect(entries[3]["passed"] as? Int == 1 && entries[3]["ran"] as? Int == 2)
        let runs = try #require(entries[1]["runs"] as? [[String: Any]])
        let failures = try #require(runs.first?["failures"] as? [[String: Any]])
        #expect(failures.first?["check"] as? String == "match user.note")
        #expect(failures.first?["expected"] as? String == "\"<a & 'b'>\"")
    }

    @Test func consoleSummaryShowsExpectedBesideFound() throws {
        let text = ConsoleSummary.render(try sample(), repeatCount: 2)
        #expect(text.contains("FAIL crash.bad (t1.yaml:1)\n"))
        #expect(text.contains("match user.note: expected \"<a & 'b'>\", found"))
        #expect(text.contains("artifacts: /tmp/a/crash.bad"))
        #expect(text.contains("heap.skip: requires root: needs root"))
        #expect(text.contains("4 scenarios: 1 passed, 1 failed, 1 skipped, 1 flaky in 1.50s"))
    }
}
