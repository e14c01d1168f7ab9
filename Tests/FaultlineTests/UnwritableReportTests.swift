import Faultline
import Foundation
import Testing

/// A report that cannot go into a file is not lost: one line on stderr names
/// the directory and the cause, and the report follows it there, whole.
@Suite struct UnwritableReportTests {
    /// The line after the one containing `marker`, decoded as a report.
    private func reportAfter(_ marker: String, in stderr: String) throws -> (line: String, report: Report) {
        let lines = stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let at = try #require(lines.firstIndex { $0.contains(marker) }, "no line with '\(marker)' in: \(stderr)")
        try #require(at + 1 < lines.count)
        let report = try ReportStore.decode(Data(lines[at + 1].utf8), path: "stderr")
        return (lines[at], report)
    }

    /// The agent opened the directory at start-up; the program then removed
    /// it, so the crash report cannot be created in it.
    @Test func crashReportGoesToStderrWhenTheDirectoryIsGone() throws {
        let parent = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let dir = "\(parent)/reports"
        let run = try runProgram(try BuildProducts.path("victim-c"), ["crash-without-report-dir"], environment: [
            "FAULTLINE_REPORT_DIR": dir, "LD_PRELOAD": try BuildProducts.path("libFaultlineAgentPreload.so"),
        ])
        #expect(run.signaled && run.status == SIGSEGV, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir))
        let (line, report) = try reportAfter("could not be written", in: run.stderr)
        #expect(line == "faultline: the crash report could not be written into \(dir): No such file or directory (ENOENT); it follows on stderr")
        #expect(report.kind == "crash")
        #expect(report.signal?.name == "SIGSEGV")
        #expect(report.crashedThread?.frames.isEmpty == false)
    }

    /// The shim was given a directory it cannot create (a path under a
    /// regular file): it says so once at start-up, and each report says why
    /// it is on stderr — not that the variable is unset.
    @Test func shimReportGoesToStderrWhenTheDirectoryCannotBeOpened() throws {
        let dir = "/etc/passwd/reports"
        let run = try runProgram(try BuildProducts.path("victim-heap"), ["double-free"], environment: [
            "FAULTLINE_REPORT_DIR": dir, "LD_PRELOAD": try BuildProducts.path("libFaultlineMallocShim.so"),
        ])
        #expect(run.status == 23, "\(run.stderr)")
        #expect(run.stderr.contains("faultline: cannot write reports into FAULTLINE_REPORT_DIR=\(dir): Not a directory;"))
        #expect(!run.stderr.contains("not set"), "\(run.stderr)")
        let (line, report) = try reportAfter("report has no directory", in: run.stderr)
        #expect(line == "faultline: the double_free report has no directory (\(dir) could not be opened); it follows on stderr")
        #expect(report.kind == "double_free")
        #expect(report.sections["free_stack"]?.arrayValue?.isEmpty == false)
    }

    /// The preloaded agent (and the shim with it) given a directory it
    /// cannot create: installed all the same, one line at start for both,
    /// and the crash report follows on stderr. The agent used to leave the
    /// program alone, so a crash went unreported.
    @Test func agentReportsOnStderrWhenTheDirectoryCannotBeOpened() throws {
        let dir = "/etc/passwd/reports"
        let preload = try ["libFaultlineMallocShim.so", "libFaultlineAgentPreload.so"].map { try BuildProducts.path($0) }
        let run = try runProgram(try BuildProducts.path("victim-c"), ["null-deref"], environment: [
            "FAULTLINE_REPORT_DIR": dir, "LD_PRELOAD": preload.joined(separator: ":"),
        ])
        #expect(run.signaled && run.status == SIGSEGV, "\(run.stderr)")
        let said = run.stderr.split(separator: "\n").filter { $0.contains("cannot write reports into") }
        #expect(said == ["faultline: cannot write reports into FAULTLINE_REPORT_DIR=\(dir): Not a directory; "
            + "this process's reports will go to stderr (check the path and its permissions)"], "\(run.stderr)")
        #expect(!run.stderr.contains("agent not installed"), "\(run.stderr)")
        let (line, report) = try reportAfter("report has no directory", in: run.stderr)
        #expect(line == "faultline: the crash report has no directory (\(dir) could not be opened); it follows on stderr")
        #expect(report.kind == "crash")
        #expect(report.signal?.name == "SIGSEGV")
    }

    /// A program that drops its privileges below a directory only root may
    /// write (`faultline exec` as root, `runuser -u nobody`): the line names
    /// the user, and the crash is reported on stderr.
    @Test(.enabled(if: geteuid() == 0, "needs root, to run the victim as nobody"))
    func droppedPrivilegesReportOnStderr() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        chmod(dir, 0o700)
        // nobody runs copies: the build may sit in a folder only root can enter.
        let products = try ReachableProducts(["victim-c", "libFaultlineAgentPreload.so"])
        let run = try runProgram("/usr/sbin/runuser", ["-u", "nobody", "--", products.path("victim-c"), "null-deref"], environment: [
            "FAULTLINE_REPORT_DIR": "\(dir)/reports", "LD_PRELOAD": products.path("libFaultlineAgentPreload.so"),
        ])
        #expect(run.stderr.contains("faultline: cannot write reports into FAULTLINE_REPORT_DIR=\(dir)/reports: Permission denied for uid 65534; "),
                "\(run.stderr)")
        let (_, report) = try reportAfter("report has no directory", in: run.stderr)
        #expect(report.kind == "crash")
        #expect(report.process.name == "victim-c")
    }

    /// The shim preloaded alone, in a tree of processes none of which can
    /// write into the directory: one line for the tree, from its first
    /// process (each process said it again: three lines here), and the
    /// programs run as without it.
    @Test func shimAloneSaysOncePerProcessTree() throws {
        let dir = "/etc/passwd/reports"
        let run = try runProgram("/bin/sh", ["-c", "/bin/echo one; /bin/echo two"], environment: [
            "FAULTLINE_REPORT_DIR": dir, "LD_PRELOAD": try BuildProducts.path("libFaultlineMallocShim.so"),
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "one\ntwo\n")
        let said = run.stderr.split(separator: "\n").filter { $0.contains("cannot write reports into") }
        #expect(said.count == 1, "\(run.stderr)")
    }

    /// The shim preloaded alone in a server that drops for good below a
    /// directory only root may write, then starts 4 workers at once: the
    /// shim's own set*id interposer says the line at the drop and marks the
    /// directory refused before any worker starts, so the tree says it once
    /// (each worker said it: 4 lines; the agent's case is the scenario
    /// crash.refused-siblings).
    @Test(.enabled(if: geteuid() == 0, "needs root, to drop to nobody"))
    func shimAloneSaysADropForGoodOnce() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        chmod(dir, 0o700)
        let run = try runProgram(try BuildProducts.path("victim-c"), ["refused-siblings", "4"], environment: [
            "FAULTLINE_REPORT_DIR": "\(dir)/reports", "LD_PRELOAD": try BuildProducts.path("libFaultlineMallocShim.so"),
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("started 4 children at once; the tree said it cannot write reports 1 time(s)"),
                "\(run.stdout)\(run.stderr)")
    }

    /// The shim alone with `FAULTLINE_REPORT_DIR=` (set, empty): the report
    /// goes to stderr, and the line says the variable is empty (it said
    /// "not set", which sends the reader to look for a missing export).
    @Test func shimReportNamesAnEmptyReportDirectory() throws {
        let run = try runProgram(try BuildProducts.path("victim-heap"), ["double-free"], environment: [
            "FAULTLINE_REPORT_DIR": "", "LD_PRELOAD": try BuildProducts.path("libFaultlineMallocShim.so"),
        ])
        #expect(run.status == 23, "\(run.stderr)")
        let (line, report) = try reportAfter("report has no directory", in: run.stderr)
        #expect(line == "faultline: the double_free report has no directory (FAULTLINE_REPORT_DIR is set but empty); it follows on stderr")
        #expect(report.kind == "double_free")
    }
}
