import Faultline
import Foundation
import Testing

/// A root program that becomes nobody for a while (seteuid; real and saved
/// uid 0) crashes below a mode-0700 report directory, as under
/// `faultline exec` run as root: the report lands in the directory, owned by
/// root like every other, not on stderr (crash.temporary-euid-crash is the
/// scenario; its directory is mode 0755).
@Suite(.enabled(if: geteuid() == 0, "needs root, to become nobody for a while"))
struct TemporaryEuidReportTests {
    /// Runs `victim-c crash-as-nobody temporary` under the agent, through
    /// `sh -c` with `shell` before it, into a fresh 0700 directory whose
    /// parent is 0700 too; returns the run and the directory.
    private func crashAsNobody(after shell: String) throws -> (run: Finished, dir: String) {
        let parent = try makeTemporaryDirectory()
        chmod(parent, 0o700)
        let dir = "\(parent)/reports"
        mkdir(dir, 0o700)
        let victim = try BuildProducts.path("victim-c")
        let run = try runProgram("/bin/sh", ["-c", "\(shell) exec \"$0\" crash-as-nobody temporary", victim], environment: [
            "FAULTLINE_REPORT_DIR": dir, "LD_PRELOAD": try BuildProducts.path("libFaultlineAgentPreload.so"),
        ])
        return (run, dir)
    }

    private func expectOneRootOwnedCrashReport(_ run: Finished, in dir: String) throws {
        defer { try? FileManager.default.removeItem(atPath: (dir as NSString).deletingLastPathComponent) }
        #expect(run.signaled && run.status == SIGSEGV, "\(run.stderr)")
        #expect(run.stderr.contains("victim: temporarily nobody: uid real 0, effective 65534, saved 0"), "\(run.stderr)")
        #expect(!run.stderr.contains("could not be written"), "\(run.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(files.count == 1 && files[0].hasPrefix("crash-") && files[0].hasSuffix(".json"), "\(files)")
        guard let name = files.first else { return }
        var st = stat()
        #expect(stat("\(dir)/\(name)", &st) == 0 && st.st_uid == 0 && st.st_mode & 0o777 == 0o600)
        let report = try ReportStore.decode(Data(contentsOf: URL(fileURLWithPath: "\(dir)/\(name)")), path: name)
        #expect(report.kind == "crash")
        #expect(report.signal?.name == "SIGSEGV")
    }

    /// The directory's fd, held since start: only the create needs root's
    /// filesystem ids.
    @Test func reportLandsThroughTheHeldDirectory() throws {
        let (run, dir) = try crashAsNobody(after: "")
        try expectOneRootOwnedCrashReport(run, in: dir)
    }

    /// Under a low fd limit the agent opens the directory by its path for
    /// each report (fl_fd_low_limit): that open needs root's ids too, which
    /// is why they are taken back before it, not after a create that failed.
    @Test func reportLandsWhenTheDirectoryIsOpenedOnDemand() throws {
        let (run, dir) = try crashAsNobody(after: "ulimit -n 200;")
        try expectOneRootOwnedCrashReport(run, in: dir)
    }
}
