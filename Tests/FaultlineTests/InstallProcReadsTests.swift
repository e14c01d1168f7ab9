import Foundation
import Testing

/// The agent's install reads /proc/self/mountinfo and /proc/self/cgroup
/// once each, finding the v1 memory hierarchy and the v2 mount in one pass:
/// it read both twice, ~0.2 ms of every process's start (docs/malloc-shim.md,
/// "Costs of a short process").
@Suite struct InstallProcReadsTests {
    @Test(.enabled(if: ProcTaskPathTests.strace != nil, "strace is not installed (apt-get install strace)"))
    func theInstallReadsTheCgroupFilesOnce() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let opens = try straceOpensOfTrue(preloading: "libFaultlineAgentPreload.so", in: dir)
        for file in ["/proc/self/mountinfo\"", "/proc/self/cgroup\""] {
            let reads = opens.filter { $0.contains(file) }
            #expect(reads.count == 1, "\(reads.joined(separator: "\n"))")
        }
    }
}
