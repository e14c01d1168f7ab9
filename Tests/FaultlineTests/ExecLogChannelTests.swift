import Faultline
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `faultline exec`'s own channel for Faultline's words and its children
/// options (docs/reports.md, "Where output goes", "Children"): the real CLI,
/// agent, shim and victims.
@Suite struct ExecLogChannelTests {
    private func faultline(_ args: [String]) throws -> Finished {
        try runProgram(try BuildProducts.path("faultline"), args)
    }

    private func reportCount(_ dir: String) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".json") }.count
    }

    /// By default the agent's line reaches exec's stderr through the FIFO;
    /// the program's stderr (a child's, compared by its parent) has none.
    @Test func theAgentsLinesReachExecsStderrNotTheProgramsStreams() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tmp = "\(dir)/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: false)
        let run = try runProgram(try BuildProducts.path("faultline"),
                                 ["exec", "--report-dir", "\(dir)/r", "--", try BuildProducts.path("victim-invisible"), "stderr-compare"],
                                 environment: ["TMPDIR": tmp])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.components(separatedBy: "stdout and stderr unchanged").count == 4, "\(run.stdout)")
        #expect(run.stderr.contains("faultline: report written: crash-"))
        #expect(reportCount("\(dir)/r") == 3)
        // The FIFO and its directory are gone.
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
    }

    /// --log-file takes the agent's lines and exec's own; the program's
    /// stderr keeps only its bytes.
    @Test func logFileTakesEveryFaultlineLine() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = "\(dir)/faultline.log"
        let run = try faultline(["exec", "--log-file", log, "--report-dir", "\(dir)/r", "--", try BuildProducts.path("victim-c"), "null-deref"])
        #expect(run.status == 139)
        #expect(run.stderr == "victim: dereferencing NULL\n", "\(run.stderr)")
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.contains("faultline: report written: crash-"))
        #expect(text.contains("faultline: 1 report(s) in \(dir)/r"))
    }

    /// --log-fd writes to a descriptor exec inherited.
    @Test func logFdWritesToTheInheritedDescriptor() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cmd = "exec \"$0\" exec --log-fd 3 --report-dir \"$1/r\" -- \"$2\" null-deref 3>\"$1/fd.log\""
        let run = try runProgram("/bin/sh", ["-c", cmd, try BuildProducts.path("faultline"), dir, try BuildProducts.path("victim-c")])
        #expect(run.status == 139)
        #expect(!run.stderr.contains("faultline:"), "\(run.stderr)")
        let text = try String(contentsOfFile: "\(dir)/fd.log", encoding: .utf8)
        #expect(text.contains("faultline: report written: crash-"))
    }

    @Test(arguments: [
        (["--trace-children=maybe"], "--trace-children 'maybe' is not yes or no"),
        (["--log-fd", "77"], "--log-fd 77: no such open descriptor"),
        (["--log-fd", "1"], "--log-fd '1' is not a descriptor above 2"),
        (["--log-file", "/nonexistent-dir/x.log"], "--log-file /nonexistent-dir/x.log: cannot open it for writing"),
        (["--log-file", "a", "--log-fd", "3"], "--log-file and --log-fd both given"),
    ])
    func badValueIsOneLineAndExit64(options: [String], message: String) throws {
        let run = try faultline(["exec"] + options + ["--", "/bin/true"])
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("faultline: \(message)"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
    }

    /// A child crash is reported by default; not with --trace-children=no,
    /// nor when --trace-children-skip names the child.
    @Test func childrenOptionsKeepFaultlineOutOfChildren() throws {
        let victim = try BuildProducts.path("victim-c")
        for (options, expected) in [([String](), 1), (["--trace-children=no"], 0), (["--trace-children-skip", "/nowhere/*,*/victim-c"], 0)] {
            let dir = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let run = try faultline(["exec", "--report-dir", "\(dir)/r"] + options + ["--", "/bin/sh", "-c", "\"$0\" null-deref; true", victim])
            #expect(run.status == 0)
            #expect(reportCount("\(dir)/r") == expected, "\(options): \(run.stderr)")
        }
    }

    /// The exit leak check is skipped in programs --leak-check-skip names
    /// (by default the system's tool directories), and only there.
    @Test func leakCheckSkipByExecutablePath() throws {
        let victim = try BuildProducts.path("victim-invisible")
        for (options, expected) in [([String](), 1), (["--leak-check-skip", "*/victim-invisible"], 0)] {
            let dir = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let run = try faultline(["exec", "--report-dir", "\(dir)/r"] + options + ["--", victim, "child-leak"])
            #expect(run.status == 0)
            #expect(reportCount("\(dir)/r") == expected, "\(options): \(run.stderr)")
        }
    }
}
