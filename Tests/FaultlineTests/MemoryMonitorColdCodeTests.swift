import Foundation
import Testing

/// The memory monitor's breadcrumb at the cgroup's limit when Faultline's
/// code was not in the page cache as the process started: the pages it
/// then read are charged to its cgroup, and at the limit the kernel
/// reclaims them first. Unlocked, the monitor's next instruction waited
/// for memory like the process that filled the cgroup (OOM killer off, so
/// for ever: `memory-limits.monitor-at-limit` timed out in every run after
/// `echo 3 > /proc/sys/vm/drop_caches`).
@Suite struct MemoryMonitorColdCodeTests {
    /// Drops Faultline's libraries and the victim from the page cache
    /// (`POSIX_FADV_DONTNEED`: clean pages no process maps), then runs the
    /// scenario.
    @Test(.enabled(if: CGroupHost.v1Memory && getuid() == 0, "SKIP: needs root and a cgroup v1 memory controller (memory.oom_control)"))
    func breadcrumbAtTheLimitWithFaultlinesCodeNotCached() throws {
        let faultline = try BuildProducts.path("faultline")
        let build = (faultline as NSString).deletingLastPathComponent
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in ["victim-oom", "libFaultlineAgentPreload.so", "libFaultlineMallocShim.so"] {
            let fd = open(build + "/" + name, O_RDONLY | O_CLOEXEC)
            try #require(fd >= 0, "cannot open \(build)/\(name)")
            #expect(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0)
            close(fd)
        }
        let run = try runProgram(faultline, ["run", "--scenarios", repo + "/Scenarios", "--build-dir", build, "--artifacts", dir + "/artifacts",
                                             "memory-limits.monitor-at-limit"])
        #expect(run.status == 0 && !run.signaled, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("1 passed"), "\(run.stdout)")
    }
}
