import Faultline
import Foundation
import Testing

/// The malloc shim's exit check on a program that writes into 20003 freed
/// blocks from two allocation and free sites: one report per site, each
/// counting its blocks, and a bounded volume of report files.
@Suite struct HeapReportVolumeTests {
    @Test func manyChangedBlocksGiveOneSmallReportPerSite() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try Victims.heapRun("write-after-free-many", in: dir)
        #expect(run.status == 23)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".json") }
        #expect(names.count == 2)
        // One report per block was 81 MB for 20000 blocks: each is a few KiB.
        let bytes = try names.reduce(0) { $0 + (try FileManager.default.attributesOfItem(atPath: "\(dir)/\($1)")[.size] as? Int ?? 0) }
        #expect(bytes < 64 * 1024, "\(bytes) bytes of reports")
        let reports = try names.map { try ReportStore.load(path: "\(dir)/\($0)") }
        let counts = reports.compactMap { $0.sections["write_after_free"]?["changed_blocks"]?.integerValue }.sorted()
        #expect(counts == [3, 20000])
        let big = try #require(reports.first { $0.sections["write_after_free"]?["changed_blocks"]?.integerValue == 20000 })
        let headline = ReportFormatter().format(big).split(separator: "\n").map(String.init)[1]
        #expect(headline.hasPrefix("write after free: 8 bytes at offset 16 changed after the free (now 8877665544332211), found at exit check — a quarantined 64-byte block at "))
        #expect(headline.hasSuffix("; 19999 more blocks allocated and freed at the same stacks changed too (20000 in all)"))
    }
}
