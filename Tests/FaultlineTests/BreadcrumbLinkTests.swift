import Faultline
import Foundation
import Testing

/// A `memory-PID.breadcrumbs` link planted in the report folder before the
/// program starts: the agent's memory monitor, making its breadcrumb file
/// under a memory limit, must replace the link, never open, truncate or
/// fill the file it points to (as root: any file on the machine).
@Suite struct BreadcrumbLinkTests {
    @Test(.enabled(if: CGroupHost.memoryProblem == nil && getuid() == 0, "SKIP: needs root and a usable memory cgroup"))
    func aPlantedLinkIsReplacedNotFollowed() throws {
        let victim = try BuildProducts.path("victim-c")
        let agent = try BuildProducts.path("libFaultlineAgentPreload.so")
        let dir = try OwnedTemporaryDirectory("faultline-breadcrumb-link")
        let reports = dir.path + "/reports", target = dir.path + "/precious"
        #expect(mkdir(reports, 0o700) == 0)
        try writeScript("precious\n", to: target)
        let cgroup = try MemoryCGroup.create(name: "faultline-test-breadcrumb-\(getpid())", limit: 256 << 20)
        defer { try? cgroup.remove() }
        // The shell joins the cgroup, plants the link for its own pid and
        // execs the victim (same pid) with the agent: the shell itself runs
        // without it.
        let script = """
            echo $$ > '\(cgroup.path)/cgroup.procs' && ln -s '\(target)' '\(reports)'/memory-$$.breadcrumbs && \
            exec env LD_PRELOAD='\(agent)' FAULTLINE_REPORT_DIR='\(reports)' FAULTLINE_DETECTORS=memory '\(victim)' exit
            """
        let run = try runProgram("/bin/sh", ["-c", script])
        #expect(run.status == 0 && !run.signaled, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("victim: exiting"), "\(run.stdout)\(run.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: target))
        #expect(data == Data("precious\n".utf8), "the link's target was written: \(data.count) bytes, \(data.prefix(8).map { String(format: "%02x", $0) })")
        // The monitor's file replaced the link and went with the process.
        let left = try FileManager.default.contentsOfDirectory(atPath: reports)
        #expect(left.isEmpty, "\(left)")
    }
}
