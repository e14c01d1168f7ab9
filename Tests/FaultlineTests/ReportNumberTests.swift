import Faultline
import Foundation
import Testing

/// Numbers a report file may hold that no field of ours does: each is a
/// one-line error naming the field, and `report show` and `report list`
/// go on (2^63 and 1e300 leak counts ended both with a Swift trap in
/// LeakSummary; schema_version -1 and 0 were accepted).
@Suite struct ReportNumberTests {
    /// A real leak report (victim-leak `list` under the malloc shim), as text.
    static func leakReportText(in dir: String) throws -> String {
        let run = try runProgram(try BuildProducts.path("victim-leak"), ["list"], environment: [
            "FAULTLINE_REPORT_DIR": dir, "LD_PRELOAD": try BuildProducts.path("libFaultlineMallocShim.so"), "FAULTLINE_DETECTORS": "leaks",
        ], directory: dir)
        #expect(run.status == 0 && !run.signaled, "\(run.stderr)")
        let path = try Victims.onlyReport(in: dir)
        defer { unlink(path) }
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    private func replacing(_ pattern: String, with value: String, in text: String) throws -> String {
        let re = try NSRegularExpression(pattern: pattern)
        let range = NSRange(text.startIndex..., in: text)
        #expect(re.firstMatch(in: text, range: range) != nil, "no \(pattern) in the report")
        return re.stringByReplacingMatches(in: text, range: range, withTemplate: "$1" + value)
    }

    private func loadError(_ text: String) -> String? {
        do {
            _ = try ReportStore.decode(Data(text.utf8), path: "r.json")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func outOfRangeLeakCountsNameTheField() throws {
        let dir = try OwnedTemporaryDirectory("faultline-report-numbers")
        let text = try Self.leakReportText(in: dir.path)
        #expect(loadError(text) == nil)
        let blocks = #"("definitely_lost"\s*:\s*\{\s*"blocks"\s*:\s*)[0-9]+"#
        for value in ["9223372036854775808", "1e300", "-1", "1.5"] {
            let bad = try replacing(blocks, with: value, in: text)
            let e = try #require(loadError(bad), "\(value) accepted")
            #expect(e.contains("field leak.totals.definitely_lost.blocks: "), "\(e)")
            #expect(!e.contains("\n"))
        }
        let count = #"("count"\s*:\s*)[0-9]+"#
        let e = try #require(loadError(try replacing(count, with: "1e300", in: text)))
        #expect(e.contains("field groups[0].count: "), "\(e)")
    }

    @Test func reportShowAndListGoOnPastThem() throws {
        let dir = try OwnedTemporaryDirectory("faultline-report-numbers")
        let text = try Self.leakReportText(in: dir.path)
        let blocks = #"("definitely_lost"\s*:\s*\{\s*"blocks"\s*:\s*)[0-9]+"#
        try writeScript(try replacing(blocks, with: "9223372036854775808", in: text), to: dir.path + "/leak-huge.json")
        try writeScript(try replacing(blocks, with: "1e300", in: text), to: dir.path + "/leak-e300.json")
        try writeScript(text, to: dir.path + "/leak-good.json")
        let faultline = try BuildProducts.path("faultline")
        let list = try runProgram(faultline, ["report", "list", dir.path])
        #expect(!list.signaled && list.status == 0, "\(list.status) \(list.stderr)")
        #expect(list.stdout.contains("1 report(s)"), "\(list.stdout)")
        #expect(list.stderr.contains("leak-huge.json") && list.stderr.contains("leak.totals.definitely_lost.blocks"), "\(list.stderr)")
        let show = try runProgram(faultline, ["report", "show", dir.path + "/leak-e300.json"])
        #expect(!show.signaled && show.status != 0, "\(show.status)")
        #expect(show.stderr.contains("field leak.totals.definitely_lost.blocks: "), "\(show.stderr)")
    }

    @Test func schemaVersionMustBeASupportedPositiveInteger() throws {
        let dir = try OwnedTemporaryDirectory("faultline-report-numbers")
        let text = try Self.leakReportText(in: dir.path)
        let version = #"("schema_version"\s*:\s*)[0-9]+"#
        for value in ["0", "-1", "1.5", "\"1\"", "1e300"] {
            let e = try #require(loadError(try replacing(version, with: value, in: text)), "\(value) accepted")
            #expect(e.contains("schema_version"), "\(value): \(e)")
        }
        #expect(loadError(try replacing(version, with: "3", in: text))?.contains("newer than this faultline reads") == true)
        #expect(loadError(try replacing(version, with: "1", in: text)) == nil)
    }
}
