import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// FAULTLINE_SUPPRESSIONS naming something that is not a regular file:
/// one line saying so, and the program runs on with its leaks reported
/// unsuppressed. The old name, FAULTLINE_LEAK_SUPPRESSIONS, is said, not
/// read.
@Suite struct LeakSuppressionFileTests {
    private func run(suppressions: String, in dir: String, variable: String = "FAULTLINE_SUPPRESSIONS") throws -> Finished {
        let preload = try ["libFaultlineAgentPreload.so", "libFaultlineMallocShim.so"].map { try BuildProducts.path($0) }
        return try runProgram(try BuildProducts.path("victim-leak"), ["list"], environment: [
            "LD_PRELOAD": preload.joined(separator: ":"), "FAULTLINE_REPORT_DIR": "\(dir)/reports",
            "FAULTLINE_DETECTORS": "leaks", variable: suppressions,
        ])
    }

    /// A user who still sets the old name gets one line saying what to set
    /// instead (it was silently the only name read before; now ignoring it
    /// silently would report every leak it hid without a word).
    @Test func oldVariableIsNamedNotRead() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = "\(dir)/leaks.supp"
        try "leak:make_list\n".write(toFile: file, atomically: true, encoding: .utf8)
        let result = try run(suppressions: file, in: dir, variable: "FAULTLINE_LEAK_SUPPRESSIONS")
        #expect(result.stderr.components(separatedBy: "\n").filter { $0.contains("SUPPRESSIONS") }
            == ["faultline: FAULTLINE_LEAK_SUPPRESSIONS=\(file) is no longer read: set FAULTLINE_SUPPRESSIONS=FILE instead (the same format, for leaks and heap errors)"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(dir)/reports").contains { $0.hasPrefix("leak-") })
        // The same file under the new name hides the list.
        try FileManager.default.removeItem(atPath: "\(dir)/reports")
        let renamed = try run(suppressions: file, in: dir)
        #expect(!renamed.stderr.contains("SUPPRESSIONS"))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: "\(dir)/reports"))?.contains { $0.hasPrefix("leak-") } != true)
    }

    /// A FIFO is refused at once; the program blocked in open(2) at startup,
    /// waiting for a writer (here one comes after 10 s, so the test ends).
    @Test func fifoIsRefusedWithoutWaiting() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = "\(dir)/suppressions"
        #expect(mkfifo(fifo, 0o600) == 0)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            // A blocked reader would wait for ever: open a writer and close it.
            if finished.wait(timeout: .now() + 10) == .timedOut {
                let fd = open(fifo, O_WRONLY | O_NONBLOCK)
                if fd >= 0 { close(fd) }
            }
        }.start()
        let start = Date()
        let result = try run(suppressions: fifo, in: dir)
        finished.signal()
        #expect(Date().timeIntervalSince(start) < 8, "the program waited for a writer")
        #expect(result.stderr.components(separatedBy: "\n").filter { $0.contains("SUPPRESSIONS") }
            == ["faultline: cannot read FAULTLINE_SUPPRESSIONS=\(fifo) (not a regular file); nothing is suppressed (check the path)"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(dir)/reports").contains { $0.hasPrefix("leak-") })
    }

    /// A directory and a missing file say which.
    @Test(arguments: [("", "(a directory)"), ("/missing", "(no such file)")])
    func otherUnreadablePathsSayWhy(suffix: String, why: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try run(suppressions: dir + suffix, in: dir)
        #expect(result.stderr.contains("faultline: cannot read FAULTLINE_SUPPRESSIONS=\(dir + suffix) \(why); nothing is suppressed"))
    }

    /// A path too long for the shim's buffer was cut at 4095 bytes without
    /// a word (and read, had the cut path existed); a long unreadable path
    /// lost the end of its line.
    @Test func longPathsAreOneWholeLine() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tooLong = dir + "/" + String(repeating: "s/", count: 2100) + "x"
        let refused = try run(suppressions: tooLong, in: dir).stderr.split(separator: "\n").filter { $0.contains("SUPPRESSIONS") }
        #expect(refused.count == 1)
        #expect(refused.first?.hasSuffix("... is a path of 4096 bytes or more; nothing is suppressed (use a shorter path)") == true)
        let long = dir + "/" + String(repeating: "s/", count: 600) + "x"
        let missing = try run(suppressions: long, in: dir).stderr.split(separator: "\n").filter { $0.contains("SUPPRESSIONS") }
        #expect(missing.count == 1)
        #expect(missing.first?.hasSuffix("... (no such file); nothing is suppressed (check the path)") == true)
    }

    /// A file over 256 KiB was read only in part without a word (its cut
    /// last line then complained of as a bad suppression).
    @Test func oversizedFileSaysWhatIsRead() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = "\(dir)/big.supp"
        try String(repeating: "# padding padding padding padding padding padding padding\n", count: 6000).write(toFile: file, atomically: true, encoding: .utf8)
        let lines = try run(suppressions: file, in: dir).stderr.split(separator: "\n").filter { $0.contains("big.supp") }
        #expect(lines == ["faultline: FAULTLINE_SUPPRESSIONS=\(file) is larger than 256 KiB; only the lines in its first 256 KiB are used (split it, or drop what is not needed)"])
    }

    /// Good lines past the 256th suppression: one line for the first and a
    /// count for the rest (a 1000-line file said so 744 times); the first
    /// 256 still work.
    @Test func suppressionsPastTheLimitAreCountedNotEachSaid() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = "\(dir)/many.supp"
        try (["leak:make_list"] + (1..<1000).map { "leak:unused_\($0)" }).joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let result = try run(suppressions: file, in: dir)
        let said = result.stderr.split(separator: "\n").filter { $0.contains("suppression") }
        #expect(said == ["faultline: \(file):257: more than 256 suppressions; the line is ignored; drop or merge some (one pattern may match many functions)",
                         "faultline: 743 more suppression(s) after that line are ignored too"])
        #expect((try? FileManager.default.contentsOfDirectory(atPath: "\(dir)/reports"))?.contains { $0.hasPrefix("leak-") } != true)
    }
}
