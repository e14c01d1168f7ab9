import Foundation
import Testing

/// The malloc shim's exit check reads /proc/self/maps once: for its roots.
/// A main thread whose stack bounds were not known yet (`/bin/true` records
/// no allocation stack) used to ask pthread_getattr_np for them first,
/// which reads and parses the whole file too (docs/malloc-shim.md, "Costs
/// of a short process").
@Suite struct ExitCheckMapsTests {
    @Test(.enabled(if: ProcTaskPathTests.strace != nil, "strace is not installed (apt-get install strace)"))
    func theExitCheckReadsTheMapsOnce() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try runProgram(ProcTaskPathTests.strace!, ["-f", "-qq", "-e", "trace=open,openat", "-o", "\(dir)/trace", "/bin/true"],
                                 environment: ["LD_PRELOAD": try BuildProducts.path("libFaultlineMallocShim.so"),
                                               "FAULTLINE_REPORT_DIR": "\(dir)/reports"])
        #expect(run.status == 0, "\(run.stderr)")
        let trace = try String(contentsOfFile: "\(dir)/trace", encoding: .utf8)
        let maps = trace.split(separator: "\n").filter { $0.contains("/maps\"") }
        #expect(maps.count == 1, "\(maps.joined(separator: "\n"))")
    }
}
