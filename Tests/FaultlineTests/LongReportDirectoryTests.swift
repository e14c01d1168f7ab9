import Foundation
import Testing

/// A FAULTLINE_REPORT_DIR longer than PATH_MAX: one line, and no directory
/// made. It was cut at 4095 bytes without a word, and the reports went into
/// the directory the cut path named (created for them).
@Suite struct LongReportDirectoryTests {
    @Test(arguments: [["libFaultlineAgentPreload.so"], ["libFaultlineAgentPreload.so", "libFaultlineMallocShim.so"]])
    func longPathIsRefused(libraries: [String]) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let long = dir + "/" + (0..<900).map { String(format: "d%03d", $0) }.joined(separator: "/")
        let preload = try libraries.map { try BuildProducts.path($0) }.joined(separator: ":")
        let result = try runProgram(try BuildProducts.path("victim-c"), ["null-deref"], environment: [
            "LD_PRELOAD": preload, "FAULTLINE_REPORT_DIR": long, "FAULTLINE_DETECTORS": "crash,use_after_free",
        ])
        let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("faultline:") }
        #expect(lines.contains { $0.hasPrefix("faultline: agent not installed: the report directory's path is longer than 4095 bytes (use a shorter one): \(dir)/d000/") },
                "\(result.stderr)")
        if libraries.count == 2 {
            #expect(lines.contains { $0.hasPrefix("faultline: cannot write reports into FAULTLINE_REPORT_DIR=\(dir)/d000")
                && $0.hasSuffix("...: File name too long; this process's reports will go to stderr (check the path and its permissions)") },
                "\(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == [], "a directory was made for the cut path")
    }
}
