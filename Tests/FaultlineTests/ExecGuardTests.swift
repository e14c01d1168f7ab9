import Faultline
import Foundation
import Testing

/// `faultline exec --guard`: the option reaches the malloc shim as
/// FAULTLINE_GUARD, and the crash it leads to is shown as AddressSanitizer
/// shows one (`READ of size 1`, a heap buffer overflow of the block).
@Suite struct ExecGuardTests {
    private func faultline(_ args: [String]) throws -> Finished {
        try runProgram(try BuildProducts.path("faultline"), args, directory: nil)
    }

    @Test func guardAllMakesAReadPastTheEndFaultAtTheInstruction() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let victim = try BuildProducts.path("victim-heap")
        let run = try faultline(["exec", "--guard", "all", "--report-dir", dir, "--", victim, "heap-read-past-end"])
        #expect(run.status == 128 + 11, "\(run.stderr)")
        #expect(run.stderr.contains("SEGV_ACCERR"), "\(run.stderr)")
        #expect(run.stderr.contains(", READ of size 1"), "\(run.stderr)")
        #expect(run.stderr.contains("heap buffer overflow: the fault address is past the end of the block, in its guard page"), "\(run.stderr)")
        #expect(run.stderr.contains("of a live 32-byte block"), "\(run.stderr)")
        // Without the option the same read goes unseen.
        let plain = try faultline(["exec", "--report-dir", "\(dir)/plain", "--", victim, "heap-read-past-end"])
        #expect(plain.status == 0, "\(plain.stderr)")
    }

    @Test func aBadGuardValueIsOneLineAndExit64() throws {
        for bad in ["some", "sample:0", "sample:x", "sample:"] {
            let run = try faultline(["exec", "--guard", bad, "--", "/bin/true"])
            #expect(run.status == 64)
            #expect(run.stderr == "faultline: --guard '\(bad)' is not all, off or sample:N (N from 1 to 2147483648); e.g. --guard sample:100\n")
        }
    }
}
