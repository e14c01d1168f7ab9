import Faultline
import Foundation
import Testing

/// `ReportSite` over real reports, and `faultline exec` printing a repeated
/// report once.
@Suite struct ReportSiteTests {
    /// Every report `victim-heap COMMAND` leaves, in file-name order.
    private func heapReports(_ command: String, environment: [String: String] = [:]) throws -> [Report] {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Victims.heapRun(command, in: dir, environment: environment)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { name throws(ReportLoadError) in try ReportStore.load(path: "\(dir)/\(name)") }
    }

    @Test func theSameDoubleFreeRepeatedIsOneSite() throws {
        let reports = try heapReports("double-free-repeated", environment: ["FAULTLINE_HALT_ON_ERROR": "0", "FAULTLINE_MAX_HEAP_REPORTS": "3"])
        #expect(reports.count == 3)
        let sites = reports.map(ReportSite.init)
        #expect(sites.allSatisfy { $0 != nil })
        #expect(Set(sites.compactMap { $0 }).count == 1)
        // Different blocks: the reports themselves differ.
        #expect(Set(reports.map { "\(String(describing: $0.sections["block"]))" }).count == 3)
    }

    @Test func writesAfterFreeFromTwoThreadsAreTwoSites() throws {
        let reports = try heapReports("write-after-free-pending")
        #expect(reports.count == 2)
        #expect(Set(reports.compactMap(ReportSite.init)).count == 2)
    }

    @Test func theSameCrashInTwoProcessesIsOneSiteDespiteASLR() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let a = try ReportStore.load(path: try Victims.crashC("null-deref", in: "\(dir)/a").path)
        let b = try ReportStore.load(path: try Victims.crashC("null-deref", in: "\(dir)/b").path)
        #expect(a.crashedThread?.frames.first?.pc != b.crashedThread?.frames.first?.pc)
        #expect(ReportSite(a) != nil && ReportSite(a) == ReportSite(b))
        let other = try ReportStore.load(path: try Victims.crashC("abort", in: "\(dir)/c").path)
        #expect(ReportSite(other) != ReportSite(a))
    }

    @Test func leakReportsHaveNoSite() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try runProgram(try BuildProducts.path("victim-leak"), ["list"], environment: [
            "FAULTLINE_REPORT_DIR": dir, "LD_PRELOAD": try BuildProducts.path("libFaultlineMallocShim.so"), "FAULTLINE_DETECTORS": "leaks"])
        #expect(run.status == 0)
        let report = try ReportStore.load(path: try Victims.onlyReport(in: dir))
        #expect(report.kind == "leak")
        #expect(ReportSite(report) == nil)
    }

    @Test func execPrintsARepeatedReportOnceAndCountsTheRest() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try runProgram(try BuildProducts.path("faultline"),
                                 ["exec", "--report-dir", dir, "--", try BuildProducts.path("victim-heap"), "double-free-repeated"],
                                 environment: ["FAULTLINE_HALT_ON_ERROR": "0", "FAULTLINE_MAX_HEAP_REPORTS": "5"])
        #expect(run.status == 0, "\(run.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".json") }
        #expect(files.count == 5)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("faultline: report ") && $0.contains(" of 5: ") }.count == 1, "\(run.stderr)")
        #expect(lines.contains { $0.hasPrefix("faultline: report 1 of 5: ") })
        #expect(lines.filter { $0.hasPrefix("double_free (detector malloc_shim)") }.count == 1)
        #expect(lines.contains { $0.hasPrefix("faultline: 4 later report(s) repeat report 1 (double_free with the same stacks), not printed; `faultline report list ") })
    }
}
