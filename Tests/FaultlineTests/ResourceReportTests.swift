import Faultline
import Foundation
import Testing

/// The resource detectors (docs/resources.md) end to end: victim-resources
/// under the real agent through `faultline exec`, and the text `report
/// show` and exec print for their reports.
@Suite struct ResourceReportTests {
    private func run(_ detectors: String?, _ command: String, in dir: String) throws -> Finished {
        let faultline = try BuildProducts.path("faultline")
        let victim = try BuildProducts.path("victim-resources")
        var args = ["exec", "--report-dir", dir]
        if let detectors { args += ["--detectors", detectors] }
        return try runProgram(faultline, args + ["--", victim, command])
    }

    private func shown(_ path: String) throws -> [String] {
        let faultline = try BuildProducts.path("faultline")
        let r = try runProgram(faultline, ["report", "show", path])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// exec prints the launch split in one line and removes the record the
    /// agent left for it, so the clean run keeps nothing; the 400 ms
    /// constructor is in `constructors`, not in `loading`.
    @Test func execPrintsTheLaunchSplitAndKeepsNothing() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = "\(dir)/reports"
        let r = try run(nil, "slow-constructor", in: out)
        #expect(r.status == 0, "\(r.stderr)")
        let line = try #require(r.stderr.split(separator: "\n").first { $0.hasPrefix("faultline: launch: ") }, "\(r.stderr)")
        let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        // "N ms to main (loading L ms, constructors C ms), ready R ms later (faultline ready)"
        #expect(numbers.count == 4, "\(line)")
        if numbers.count == 4 {
            #expect(numbers[2] >= 400 && numbers[1] < numbers[2] && numbers[0] >= numbers[2], "\(line)")
        }
        #expect(line.hasSuffix("(faultline ready)"), "\(line)")
        #expect(!FileManager.default.fileExists(atPath: out), "the clean run left \(out): \((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [])")
    }

    /// An fd_leak shows each group's count, call and stack, then each
    /// descriptor with what it is; the groups are not repeated as a tree.
    @Test func fdLeakShowsDescriptorsUnderTheirStacks() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try run("fds", "fd-socket-pipe", in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try shown(try Victims.onlyReport(in: dir))
        #expect(lines.contains("fd_leak: 3 descriptor(s) still open at exit, opened from 2 stack(s)"), "\(lines.prefix(4))")
        let pipe = try #require(lines.firstIndex(of: "2 descriptor(s) opened by pipe at:"), "\(lines)")
        #expect(lines[pipe + 1].contains("victim_make_pipe"), "\(lines[pipe + 1])")
        #expect(lines.filter { $0.hasPrefix("  fd ") && $0.contains(": pipe pipe:[") }.count == 2, "\(lines)")
        let socket = try #require(lines.firstIndex(of: "1 descriptor(s) opened by socket at:"), "\(lines)")
        #expect(lines[socket + 1].contains("victim_open_socket"), "\(lines[socket + 1])")
        #expect(!lines.contains { $0.contains("opening_stack") || $0.trimmingCharacters(in: .whitespaces) == "groups:" }, "\(lines)")
    }

    /// Without --detectors fds stays off (docs/resources.md, "Defaults"):
    /// the same leak gives no report.
    @Test func fdsIsOffByDefault() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try run(nil, "fd-socket-pipe", in: "\(dir)/reports")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("faultline: 0 report(s)"), "\(r.stderr)")
    }

    /// A thread_leak lists the creating stack and the threads' ids.
    @Test func threadLeakShowsTheCreatingStack() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try run(nil, "thread-leak", in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try shown(try Victims.onlyReport(in: dir))
        #expect(lines.contains("thread_leak: 10 thread(s) finished and were never joined or detached"), "\(lines.prefix(4))")
        let group = try #require(lines.firstIndex(of: "10 thread(s) created at:"), "\(lines)")
        #expect(lines[group + 1].contains("victim_start_forgotten_workers"), "\(lines[group + 1])")
        let ids = try #require(lines.first { $0.hasPrefix("  threads: ") }, "\(lines)")
        #expect(ids.split(separator: ",").count == 10, "\(ids)")
    }

    /// A cpu_hog's line under the header, from a report's fields.
    @Test func cpuHogHeadline() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let json = #"{"schema": "faultline.report", "schema_version": 1, "id": "c6629af4b275ed31", "kind": "cpu_hog", "detector": "cpu", "time": "2026-12-01T21:28:15.483Z", "time_unix_ms": 1796160495483, "process": {"pid": 20234, "name": "victim-resource"}, "crashed_thread": {"tid": 20236, "name": "spinner", "main": false, "stack": "culprit", "frames": [{"pc": "0x1000"}]}, "cpu_hog": {"threshold_percent": 80, "window_ms": 3000, "duration_ms": 3236, "cpu_ms": 3100, "share_percent": 96, "process_cpu_ms": 3200, "process_share_percent": 99, "sample_interval_ms": 50, "samples": {"taken": 59, "with_stack": 59, "distinct_stacks": 2}, "stacks": [{"count": 50, "frames": [{"pc": "0x1000"}]}, {"count": 9, "frames": [{"pc": "0x2000"}]}]}}"#
        try json.write(toFile: "\(dir)/a.json", atomically: true, encoding: .utf8)
        let lines = ReportFormatter().format(try ReportStore.load(path: "\(dir)/a.json")).split(separator: "\n").map(String.init)
        #expect(lines[1] == #"cpu_hog: thread 20236 "spinner" used 96 % of a core for 3236 ms (3100 ms CPU; the process 99 %), above 80 % for 3000 ms"#, "\(lines)")
        let first = try #require(lines.firstIndex(of: "50 sample(s) in:"), "\(lines)")
        let second = try #require(lines.firstIndex(of: "9 sample(s) in:"), "\(lines)")
        #expect(first < second)
        #expect(lines.contains("  share_percent: 96") && !lines.contains { $0.hasSuffix("stacks:") }, "\(lines)")
    }
}
