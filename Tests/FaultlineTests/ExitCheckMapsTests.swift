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
        let maps = try straceOpensOfTrue(preloading: "libFaultlineMallocShim.so", in: dir).filter { $0.contains("/maps\"") }
        #expect(maps.count == 1, "\(maps.joined(separator: "\n"))")
    }
}
