@testable import Faultline
import Foundation
import Testing

/// Whether a perf map file can be the report's process's (`PerfMapFile`),
/// and the symbolicator naming frames no image holds from it.
@Suite struct PerfMapFileTests {
    /// A pid no process can have (above any pid_max), so no running
    /// process is taken for a later owner of it.
    static let unusedPid = Int(Int32.max)

    /// Whether the temporary directory's file system keeps birth times
    /// (tmpfs and ext4 do; the created-after-the-report check needs them).
    static let birthTimesKept: Bool = {
        guard let dir = try? makeTemporaryDirectory() else { return false }
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = FileManager.default.createFile(atPath: "\(dir)/probe", contents: Data())
        return FileBirthTime.of("\(dir)/probe") != nil
    }()

    /// A report from `pid` at `time` whose crashed thread has frame 0 in
    /// no image at `pc` and frame 1, a return address, at `pc + 1`.
    static func report(pid: Int, time: Date, pc: UInt64) throws -> Report {
        let ns = UInt64(time.timeIntervalSince1970 * 1e9)
        let json = """
            {"schema": "faultline.report", "schema_version": 1, "id": "0123456789abcdef", "kind": "crash",
             "time": "2026-11-23T00:00:00.000Z", "time_unix_ms": \(ns / 1_000_000), "time_unix_ns": \(ns),
             "process": {"pid": \(pid)},
             "crashed_thread": {"tid": \(pid), "frames": [{"pc": "0x\(String(pc, radix: 16))"},
                                                          {"pc": "0x\(String(pc + 1, radix: 16))"}]}}
            """
        return try JSONDecoderFactory.reports().decode(Report.self, from: Data(json.utf8))
    }

    /// The names the symbolicator gives the report's frames, with a map
    /// file written now in `dir`.
    static func names(reportTime: Date, earliestProcessStart: Date? = nil, dir: String) throws -> [String?] {
        try PerfMapFixture.node.write(toFile: PerfMapFile.path(pid: unusedPid, directory: dir), atomically: false, encoding: .utf8)
        var s = Symbolicator(tools: [])
        s.perfMapDirectory = dir
        s.earliestProcessStart = earliestProcessStart
        let report = try report(pid: unusedPid, time: reportTime, pc: PerfMapFixture.spinReturnAddress - 1)
        return s.symbolicate(report).crashedThread?.frames.map { $0.symbol?.function } ?? []
    }

    @Test func framesInNoImageAreNamedFromTheMapWithItsPath() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try PerfMapFixture.node.write(toFile: PerfMapFile.path(pid: Self.unusedPid, directory: dir), atomically: false, encoding: .utf8)
        var s = Symbolicator(tools: [])
        s.perfMapDirectory = dir
        let report = try Self.report(pid: Self.unusedPid, time: Date().addingTimeInterval(60), pc: PerfMapFixture.spinReturnAddress - 1)
        let frames = try #require(s.symbolicate(report).crashedThread?.frames)
        // Frame 0 is the interrupted instruction, frame 1 a return address
        // looked up one byte earlier: both in spin's optimized code.
        for frame in frames {
            #expect(frame.symbol?.function == "JS:*spin /tmp/h70-busy.js:1:14")
            #expect(frame.symbol?.perfMap == PerfMapFile.path(pid: Self.unusedPid, directory: dir))
            #expect(frame.symbol?.file == nil)
        }
        // The JSON keeps where the name came from.
        let json = String(decoding: try JSONEncoderFactory.plain().encode(s.symbolicate(report)), as: UTF8.self)
        #expect(json.contains("\"perf_map\":\"\(PerfMapFile.path(pid: Self.unusedPid, directory: dir))\""), "\(json)")
    }

    @Test(.enabled(if: birthTimesKept, "the temporary directory's file system keeps no birth times"))
    func aFileCreatedAfterTheReportIsNotRead() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try Self.names(reportTime: Date().addingTimeInterval(-60), dir: dir) == [nil, nil])
        // The same file for a report written after it was.
        #expect(try Self.names(reportTime: Date().addingTimeInterval(60), dir: dir).allSatisfy { $0?.hasSuffix("spin /tmp/h70-busy.js:1:14") == true })
    }

    @Test func aFileLastWrittenBeforeTheProcessCouldStartIsNotRead() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let later = Date().addingTimeInterval(60)
        #expect(try Self.names(reportTime: later.addingTimeInterval(60), earliestProcessStart: later, dir: dir) == [nil, nil])
        #expect(try Self.names(reportTime: later.addingTimeInterval(60), earliestProcessStart: Date().addingTimeInterval(-60), dir: dir)
                    .allSatisfy { $0 != nil })
    }

    @Test func aSymbolicatorParsesAnUnchangedMapOnceAndAChangedOneAgain() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = PerfMapFile.path(pid: Self.unusedPid, directory: dir)
        try "1000 100 first\n".write(toFile: path, atomically: false, encoding: .utf8)
        var st = stat()
        try #require(stat(path, &st) == 0)
        /// Sets the file's modification time to the first write's plus `seconds`, to the nanosecond.
        func setModified(plus seconds: Int) throws {
            var times = [st.st_atim, st.st_mtim]
            times[1].tv_sec += seconds
            try #require(utimensat(AT_FDCWD, path, &times, 0) == 0)
        }
        var s = Symbolicator(tools: [])
        s.perfMapDirectory = dir
        let report = try Self.report(pid: Self.unusedPid, time: Date().addingTimeInterval(60), pc: 0x1010)
        #expect(s.symbolicate(report).crashedThread?.frames.first?.symbol?.function == "first")

        // Same inode, size and modification time: taken for the same file,
        // so the second report is named from the map parsed for the first.
        try "1000 100 other\n".write(toFile: path, atomically: false, encoding: .utf8)
        try setModified(plus: 0)
        #expect(s.symbolicate(report).crashedThread?.frames.first?.symbol?.function == "first")

        // Written since: parsed again.
        try setModified(plus: 1)
        #expect(s.symbolicate(report).crashedThread?.frames.first?.symbol?.function == "other")
    }

    @Test func theRules() {
        let report = Date(timeIntervalSince1970: 1_000_000)
        func at(_ seconds: Double) -> Date { report.addingTimeInterval(seconds) }
        #expect(PerfMapFile.rejection(created: at(1), modified: at(2), reportTime: report, earliestProcessStart: nil, runningStart: nil)
                == .createdAfterReport)
        #expect(PerfMapFile.rejection(created: nil, modified: at(2), reportTime: report, earliestProcessStart: nil, runningStart: nil) == nil)
        #expect(PerfMapFile.rejection(created: at(-9), modified: at(-5), reportTime: report, earliestProcessStart: at(-4), runningStart: nil)
                == .writtenBeforeProcessStart)
        #expect(PerfMapFile.rejection(created: at(-9), modified: at(-4), reportTime: report, earliestProcessStart: at(-4), runningStart: nil) == nil)
        // A process with the pid now, started after the report: its writes are not the reported process's.
        #expect(PerfMapFile.rejection(created: at(-9), modified: at(30), reportTime: report, earliestProcessStart: nil, runningStart: at(20))
                == .pidReused)
        #expect(PerfMapFile.rejection(created: at(-9), modified: at(10), reportTime: report, earliestProcessStart: nil, runningStart: at(20)) == nil)
        // The reported process itself, still running (hang reports): it may write after the report.
        #expect(PerfMapFile.rejection(created: at(-9), modified: at(30), reportTime: report, earliestProcessStart: nil, runningStart: at(-60)) == nil)
    }

    @Test func aRunningProcessesStartIsReadFromProc() throws {
        let before = Date()
        let sleeper = try ChildProcess.spawn("/bin/sleep", arguments: ["sleep", "5"], environment: [:])
        let after = Date()
        defer { kill(sleeper, SIGKILL); _ = ChildProcess.wait(sleeper) }
        let start = try #require(ProcessStartTime.of(pid: Int(sleeper)))
        // /proc/stat's boot time is in whole seconds, the start in clock ticks.
        #expect(start > before.addingTimeInterval(-1.5) && start < after.addingTimeInterval(1.5), "\(before) \(start) \(after)")
        #expect(ProcessStartTime.of(pid: Self.unusedPid) == nil)
    }
}
