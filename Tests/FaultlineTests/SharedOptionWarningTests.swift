import Foundation
import Testing

/// A bad value of a variable both the agent and the malloc shim read gets
/// one line, whichever of them is loaded (it got two, worded differently,
/// when both were).
@Suite struct SharedOptionWarningTests {
    @Test(arguments: [["libFaultlineAgentPreload.so", "libFaultlineMallocShim.so"], ["libFaultlineAgentPreload.so"], ["libFaultlineMallocShim.so"]])
    func badSharedValueIsOneLine(libraries: [String]) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let preload = try libraries.map { try BuildProducts.path($0) }.joined(separator: ":")
        let result = try runProgram(try BuildProducts.path("victim-c"), ["exit"], environment: [
            "LD_PRELOAD": preload, "FAULTLINE_REPORT_DIR": dir,
            "FAULTLINE_DETECTORS": "crash,use-after-free", "FAULTLINE_MAX_FRAMES": "lots",
        ])
        #expect(result.status == 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.filter { $0.contains("FAULTLINE_DETECTORS") }.count == 1, "\(result.stderr)")
        #expect(lines.filter { $0.contains("FAULTLINE_MAX_FRAMES") }.count == 1, "\(result.stderr)")
    }
}
