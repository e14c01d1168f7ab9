import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// FAULTLINE_LEAK_SUPPRESSIONS naming something that is not a regular
/// file: one line saying so, and the program runs on with its leaks
/// reported unsuppressed.
@Suite struct LeakSuppressionFileTests {
    private func run(suppressions: String, in dir: String) throws -> Finished {
        let preload = try ["libFaultlineAgentPreload.so", "libFaultlineMallocShim.so"].map { try BuildProducts.path($0) }
        return try runProgram(try BuildProducts.path("victim-leak"), ["list"], environment: [
            "LD_PRELOAD": preload.joined(separator: ":"), "FAULTLINE_REPORT_DIR": "\(dir)/reports",
            "FAULTLINE_DETECTORS": "leaks", "FAULTLINE_LEAK_SUPPRESSIONS": suppressions,
        ])
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
            == ["faultline: cannot read FAULTLINE_LEAK_SUPPRESSIONS=\(fifo) (not a regular file); leaks are reported unsuppressed (check the path)"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(dir)/reports").contains { $0.hasPrefix("leak-") })
    }

    /// A directory and a missing file say which.
    @Test(arguments: [("", "(a directory)"), ("/missing", "(no such file)")])
    func otherUnreadablePathsSayWhy(suffix: String, why: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try run(suppressions: dir + suffix, in: dir)
        #expect(result.stderr.contains("faultline: cannot read FAULTLINE_LEAK_SUPPRESSIONS=\(dir + suffix) \(why); leaks are reported unsuppressed"))
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
        #expect(refused.first?.hasSuffix("... is a path of 4096 bytes or more; leaks are reported unsuppressed (use a shorter path)") == true)
        let long = dir + "/" + String(repeating: "s/", count: 600) + "x"
        let missing = try run(suppressions: long, in: dir).stderr.split(separator: "\n").filter { $0.contains("SUPPRESSIONS") }
        #expect(missing.count == 1)
        #expect(missing.first?.hasSuffix("... (no such file); leaks are reported unsuppressed (check the path)") == true)
    }

    /// A file over 256 KiB was read only in part without a word (its cut
    /// last line then complained of as a bad suppression).
    @Test func oversizedFileSaysWhatIsRead() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = "\(dir)/big.supp"
        try String(repeating: "# padding padding padding padding padding padding padding\n", count: 6000).write(toFile: file, atomically: true, encoding: .utf8)
        let lines = try run(suppressions: file, in: dir).stderr.split(separator: "\n").filter { $0.contains("big.supp") }
        #expect(lines == ["faultline: FAULTLINE_LEAK_SUPPRESSIONS=\(file) is larger than 256 KiB; only the lines in its first 256 KiB are used (split it, or drop what is not needed)"])
    }
}
