import Faultline
import Foundation
import Testing

/// `faultline exec -- prog 2>&1 | head -3`: the reader goes away while
/// faultline still writes. Its output stops; its status is the program's
/// (it died in FileHandle.write, SIGILL, exit 132, instead of 139).
@Suite struct ClosedPipeTests {
    /// Runs `args` with stdout and stderr on a pipe whose reader is closed.
    private func runIntoClosedPipe(_ path: String, _ args: [String]) throws -> ChildProcess.Termination {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        close(fds[0])
        defer { close(fds[1]) }
        let devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(devnull) }
        var env = ProcessInfo.processInfo.environment
        env["SWIFT_BACKTRACE"] = "enable=no"
        let pid = try ChildProcess.spawn(path, arguments: [path] + args, environment: env,
                                         stdin: devnull, stdout: fds[1], stderr: fds[1], directory: nil)
        return ChildProcess.wait(pid)
    }

    @Test func execPassesOnTheProgramsStatus() throws {
        let dir = try OwnedTemporaryDirectory("faultline-closed-pipe")
        // Programs that write nothing themselves (one that did would die
        // of SIGPIPE, 141, with or without faultline): the crash report
        // and the closing lines are faultline's writes into the closed pipe.
        let end = try runIntoClosedPipe(try BuildProducts.path("faultline"),
                                        ["exec", "--report-dir", dir.path + "/r", "--", "/bin/sh", "-c", "kill -SEGV $$"])
        #expect(end.shellStatus == 139, "\(end)")
        let exit = try runIntoClosedPipe(try BuildProducts.path("faultline"),
                                         ["exec", "--report-dir", dir.path + "/e", "--", "/bin/sh", "-c", "exit 7"])
        #expect(exit.shellStatus == 7, "\(exit)")
    }

    @Test func runEndsWithItsVerdictsStatus() throws {
        let dir = try OwnedTemporaryDirectory("faultline-closed-pipe")
        #expect(mkdir(dir.path + "/s", 0o755) == 0)
        try writeScript("victim: /bin/true\nexpect: {exit: {code: 0}}\n", to: dir.path + "/s/passes.yaml")
        try writeScript("victim: /bin/false\nexpect: {exit: {code: 0}}\n", to: dir.path + "/s/fails.yaml")
        let faultline = try BuildProducts.path("faultline")
        let build = (faultline as NSString).deletingLastPathComponent
        let run = ["run", "--scenarios", dir.path + "/s", "--build-dir", build, "--artifacts", dir.path + "/a"]
        #expect(try runIntoClosedPipe(faultline, run + ["passes"]).shellStatus == 0)
        #expect(try runIntoClosedPipe(faultline, run).shellStatus == 1)
    }

    @Test func reportListAndShowEndNormally() throws {
        let dir = try OwnedTemporaryDirectory("faultline-closed-pipe")
        let crash = try Victims.crashC("null-deref", in: dir.path)
        let faultline = try BuildProducts.path("faultline")
        #expect(try runIntoClosedPipe(faultline, ["report", "list", dir.path]).shellStatus == 0)
        #expect(try runIntoClosedPipe(faultline, ["report", "show", crash.path]).shellStatus == 0)
    }
}
