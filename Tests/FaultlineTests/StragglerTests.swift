import Faultline
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A process the program started that outlives it (a straggler) and crashes
/// after `faultline exec` has printed and ended: its report used to land in
/// the hidden `.exec-*` directory (made again by its agent after exec had
/// removed or renamed it), where neither exec nor `report list` looked.
@Suite struct StragglerTests {
    /// Starts, in the background of a shell that exits at once, a job that
    /// waits on a FIFO (a barrier, no sleeps) and then execs `victim-c
    /// null-deref`. Its output goes to a file: it must not hold our pipes.
    private func runWithStraggler(in cwd: String) throws -> (run: Finished, release: () throws -> Void) {
        let fifo = "\(cwd)/barrier"
        guard mkfifo(fifo, 0o600) == 0 else { throw Victims.Unexpected(what: "mkfifo \(fifo): \(String(cString: strerror(errno)))") }
        let victim = try BuildProducts.path("victim-c")
        let script = "( exec </dev/null >/dev/null 2>\"$1/straggler.err\"; read line < \"$1/barrier\"; exec \"$2\" null-deref ) & exit 0"
        // Into files, not pipes: the straggler keeps the agent's copy of the
        // real stderr open, and a pipe would not end before it does.
        let faultline = try BuildProducts.path("faultline")
        let out = open("\(cwd)/exec.out", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600), err = open("\(cwd)/exec.err", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(out); close(err) }
        var env = ProcessInfo.processInfo.environment
        env["SWIFT_BACKTRACE"] = "enable=no"
        let pid = try ChildProcess.spawn(faultline, arguments: [faultline, "exec", "--", "/bin/sh", "-c", script, "sh", cwd, victim],
                                         environment: env, stdout: out, stderr: err, directory: cwd)
        var status: Int32 = 0, signaled = false
        switch ChildProcess.wait(pid) {
        case .exited(let c): status = c
        case .signaled(let s): (status, signaled) = (s, true)
        }
        let run = Finished(status: status, signaled: signaled, stdout: try String(contentsOfFile: "\(cwd)/exec.out", encoding: .utf8),
                           stderr: try String(contentsOfFile: "\(cwd)/exec.err", encoding: .utf8))
        var released = false
        let release = {
            guard !released else { return }
            released = true
            let fd = open(fifo, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw Victims.Unexpected(what: "open \(fifo): \(String(cString: strerror(errno)))") }
            _ = write(fd, "go\n", 3)
            close(fd)
        }
        return (run, release)
    }

    /// The report files in `dir`, waited for up to 20 s.
    private func reports(in dir: String, atLeast count: Int) -> [String] {
        for _ in 0..<2000 {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
            if names.count >= count { return names }
            usleep(10_000)
        }
        return []
    }

    @Test func aStragglersReportLandsInTheNamedDirectoryAndExecSaysSo() throws {
        let cwd = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: cwd) }
        let (run, release) = try runWithStraggler(in: cwd)
        // A failed expectation must not leave the straggler waiting for ever.
        defer { try? release() }
        #expect(run.status == 0, "\(run.stderr)")

        // The run directory is kept (the straggler may write into it) and
        // named like any other; exec's last line says so.
        let parent = "\(cwd)/faultline-reports"
        let visible = try FileManager.default.contentsOfDirectory(atPath: parent).filter { !$0.hasPrefix(".") }
        #expect(visible.count == 1, "\(visible)")
        let name = try #require(visible.first)
        #expect(name.range(of: #"^sh-\d{8}-\d{6}-\d+$"#, options: .regularExpression) != nil, "\(name)")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count >= 2 && lines[lines.count - 2] == "faultline: 0 report(s) in faultline-reports/\(name)", "\(run.stderr)")
        let last = try #require(lines.last)
        #expect(last.range(of: #"^faultline: 1 process\(es\) the program started are still running \(pid \d+\); "#,
                           options: .regularExpression) != nil, "\(last)")
        #expect(last.hasSuffix("the reports they write go to faultline-reports/\(name) too: `faultline report list faultline-reports/\(name)` shows them"))

        // Now the straggler execs a program (a fresh agent, which opens the
        // directory by the path it was given) and crashes.
        try release()
        let written = reports(in: "\(parent)/\(name)", atLeast: 1)
        #expect(written.count == 1, "the straggler's report is not in \(name): \((try? FileManager.default.subpathsOfDirectory(atPath: parent)) ?? [])")
        let report = try ReportStore.load(path: try Victims.onlyReport(in: "\(parent)/\(name)"))
        #expect(report.signal?.name == "SIGSEGV")
        let listed = try ReportStore.list(directory: parent, includingSubdirectories: true).compactMap(\.report)
        #expect(listed.map(\.id) == [report.id], "report list must show it exactly once")
    }

    @Test func aRunWithoutStragglersStillLeavesNothingBehind() throws {
        let cwd = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: cwd) }
        let run = try runProgram(try BuildProducts.path("faultline"), ["exec", "--", "/bin/sh", "-c", "/bin/true & wait"], directory: cwd)
        #expect(run.status == 0)
        #expect(!run.stderr.contains("still running"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(cwd)/faultline-reports"))
    }
}
