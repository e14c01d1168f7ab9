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
        #expect(run.stderr.contains("faultline: malloc shim cannot open FAULTLINE_REPORT_DIR=\(dir): Not a directory;"))
        #expect(!run.stderr.contains("not set"), "\(run.stderr)")
        let (line, report) = try reportAfter("report has no directory", in: run.stderr)
        #expect(line == "faultline: the double_free report has no directory (\(dir) could not be opened); it follows on stderr")
        #expect(report.kind == "double_free")
        #expect(report.sections["free_stack"]?.arrayValue?.isEmpty == false)
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
