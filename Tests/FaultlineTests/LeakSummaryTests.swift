import Faultline
import Foundation
import Testing

/// `faultline exec --leaks`'s summary over real leak reports: victim-leak run
/// under the real malloc shim with the exit check on.
@Suite struct LeakSummaryTests {
    private func leakReports(_ args: [String], env: [String: String] = [:]) throws -> [Report] {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let victim = try BuildProducts.path("victim-leak")
        let shim = try BuildProducts.path("libFaultlineMallocShim.so")
        var environment = ["FAULTLINE_REPORT_DIR": dir, "LD_PRELOAD": shim, "FAULTLINE_DETECTORS": "leaks"]
        for (k, v) in env { environment[k] = v }
        let run = try runProgram(victim, args, environment: environment)
        #expect(run.status == 0 && !run.signaled)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { name throws(ReportLoadError) in
            Symbolicator().symbolicateWithWarnings(try ReportStore.load(path: "\(dir)/\(name)")).report
        }
    }

    @Test func lostListIsSummarisedByClassAndOrigin() throws {
        let reports = try leakReports(["list"])
        let report = try #require(reports.first)
        #expect(reports.count == 1 && report.kind == "leak")
        let lines = LeakSummary().render(reports).split(separator: "\n").map(String.init)
        #expect(lines[0] == "leak summary:")
        #expect(lines[1].contains("victim-leak (pid \(report.process.pid), exit): 1 block(s) definitely lost (48 bytes), 9 indirectly (432 bytes), 0 suppressed"))
        // Ordered by bytes: the 9 indirectly lost nodes first, then the head.
        #expect(lines[2].hasPrefix("    432 bytes in 9 block(s) indirectly lost at make_list (main.c:"))
        #expect(lines[3].hasPrefix("    48 bytes in 1 block(s) definitely lost at make_list (main.c:"))
    }

    @Test func growthReportNamesTheGrowingStack() throws {
        let reports = try leakReports(["growth", "30", "20"],
                                      env: ["FAULTLINE_LEAK_GROWTH_MS": "60", "FAULTLINE_LEAK_GROWTH_SNAPSHOTS": "3"])
        #expect(reports.contains { $0.kind == "leak_growth" })
        let text = LeakSummary().render(reports)
        #expect(text.contains("growing by "))
        #expect(text.contains("over 3 snapshots"))
        #expect(text.contains("at grow_slowly (main.c:"))
    }

    @Test func noLeakReportsSaySo() {
        #expect(LeakSummary().render([]).contains("no leak reports"))
    }
}
