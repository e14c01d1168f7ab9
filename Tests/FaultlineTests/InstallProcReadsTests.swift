import Foundation
import Testing

/// The agent's install reads /proc/self/cgroup once, and
/// /proc/self/mountinfo at most once (not at all when the hierarchies are
/// mounted where systems mount them), finding the v1 memory hierarchy and
/// the v2 mount in one pass: it read both twice, ~0.2 ms of every process's
/// start (docs/malloc-shim.md, "Costs of a short process").
@Suite struct InstallProcReadsTests {
    @Test(.enabled(if: ProcTaskPathTests.strace != nil, "strace is not installed (apt-get install strace)"))
    func theInstallReadsTheCgroupFilesOnce() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let opens = try straceOpensOfTrue(preloading: "libFaultlineAgentPreload.so", in: dir)
        let cgroup = opens.filter { $0.contains("/proc/self/cgroup\"") }
        #expect(cgroup.count == 1, "\(cgroup.joined(separator: "\n"))")
        let mountinfo = opens.filter { $0.contains("/proc/self/mountinfo\"") }
        #expect(mountinfo.count <= 1, "\(mountinfo.joined(separator: "\n"))")
    }
}
