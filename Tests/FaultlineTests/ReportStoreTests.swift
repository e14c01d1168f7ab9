import Faultline
import Foundation
import Testing

/// Every kind of bad file in a report directory gives its own one-line
/// error naming the file, and listing a directory never stops at one.
@Suite struct ReportStoreTests {
    /// A directory holding one real report and one file of each bad kind.
    struct Fixture {
        let dir: String
        let good: String
        let realJSON: Data

        init() throws {
            dir = try makeTemporaryDirectory()
            good = try Victims.crashC("null-deref", in: dir).path
            realJSON = try Data(contentsOf: URL(fileURLWithPath: good))
        }

        func write(_ name: String, _ data: Data) throws -> String {
            let path = "\(dir)/\(name)"
            try data.write(to: URL(fileURLWithPath: path))
            return path
        }

        /// The real report with `schema_version` replaced.
        func withVersion(_ v: Int) throws -> Data {
            guard case .object(var o) = try JSONDecoder().decode(JSONValue.self, from: realJSON) else { throw CocoaError(.fileReadCorruptFile) }
            o["schema_version"] = .number(Double(v))
            return try JSONEncoder().encode(JSONValue.object(o))
        }

        /// The real report without `key`.
        func without(_ key: String) throws -> Data {
            guard case .object(var o) = try JSONDecoder().decode(JSONValue.self, from: realJSON) else { throw CocoaError(.fileReadCorruptFile) }
            o.removeValue(forKey: key)
            return try JSONEncoder().encode(JSONValue.object(o))
        }
    }

    private func reason(_ path: String) -> ReportLoadError.Reason? {
        do throws(ReportLoadError) {
            _ = try ReportStore.load(path: path)
            return nil
        } catch {
            #expect(!error.description.contains("\n"), "error is more than one line: \(error)")
            #expect(error.description.hasPrefix(path), "error does not start with the file: \(error)")
            return error.reason
        }
    }

    /// Reports started within one millisecond are listed by `time_unix_ns`
    /// (not by name); reports without it fall back to `time_unix_ms`.
    @Test func listOrdersByNanosecondsWithinAMillisecond() throws {
        let f = try Fixture()
        defer { try? FileManager.default.removeItem(atPath: f.dir) }
        try FileManager.default.removeItem(atPath: f.good)
        func report(ms: UInt64, ns: UInt64?) throws -> Data {
            guard case .object(var o) = try JSONDecoder().decode(JSONValue.self, from: f.realJSON) else { throw CocoaError(.fileReadCorruptFile) }
            o["time_unix_ms"] = .number(Double(ms))
            o["time_unix_ns"] = ns.map { .number(Double($0)) }
            return try JSONEncoder().encode(JSONValue.object(o))
        }
        let base: UInt64 = 1_795_000_000_000
        let a = try f.write("a-written-last.json", report(ms: base, ns: base * 1_000_000 + 900_000))
        let z = try f.write("z-written-first.json", report(ms: base, ns: base * 1_000_000 + 100_000))
        let old = try f.write("m-older-no-ns.json", report(ms: base - 1, ns: nil))
        let later = try f.write("0-next-ms-no-ns.json", report(ms: base + 1, ns: nil))
        #expect(try ReportStore.list(directory: f.dir).map(\.path) == [old, z, a, later])
    }

    @Test func eachBadKindHasItsOwnError() throws {
        let f = try Fixture()
        defer { try? FileManager.default.removeItem(atPath: f.dir) }
        #expect(reason(f.good) == nil)
        #expect(reason(try f.write("empty.json", Data())) == .empty)
        #expect(reason(try f.write("blank.json", Data("  \n\t\n".utf8))) == .empty)
        // Cut inside a string, inside an array, and just after a nested
        // object closed: all truncated.
        for cut in [f.realJSON.count / 2, 300, f.realJSON.count - 3] {
            #expect(reason(try f.write("cut-\(cut).json", f.realJSON.prefix(cut))) == .truncated, "cut at \(cut)")
        }
        #expect(reason(try f.write("foreign.json", Data(#"{"name": "package", "version": "1.0"}"#.utf8))) == .foreign)
        #expect(reason(try f.write("array.json", Data("[1, 2, 3]".utf8))) == .foreign)
        if case .notJSON(let why)? = reason(try f.write("text.json", Data("hello\nworld".utf8))) {
            #expect(why.contains("line 1"))
        } else { Issue.record("plain text not reported as not JSON") }
        // A number too big for its field: named, with its path (the decoder
        // said "The given data was not valid JSON. at top level").
        var big = try JSONSerialization.jsonObject(with: f.realJSON) as! [String: Any]
        var process = big["process"] as! [String: Any]
        process["pid"] = NSDecimalNumber(string: "1000000000000000000000000000000")
        big["process"] = process
        #expect(reason(try f.write("big.json", JSONSerialization.data(withJSONObject: big)))
            == .invalid("the number 1000000000000000000000000000000 at process.pid is too big for a report field"))
        // Paths in the report's own keys: crashed_thread.frames[0].pc, not crashedThread.frames.[0].pc.
        var frameless = try JSONSerialization.jsonObject(with: f.realJSON) as! [String: Any]
        var thread = frameless["crashed_thread"] as! [String: Any]
        thread["frames"] = [[String: Any]()]
        frameless["crashed_thread"] = thread
        #expect(reason(try f.write("frameless.json", JSONSerialization.data(withJSONObject: frameless)))
            == .invalid("missing crashed_thread.frames[0].pc"))
        // Too deep to read is not a syntax error.
        let deep = Data((String(repeating: "[", count: 600) + String(repeating: "]", count: 600)).utf8)
        #expect(reason(try f.write("deep.json", deep))
            == .notJSON("arrays and objects nested more than 512 deep at line 1, column 514; no report nests so deep"))
        if case .notJSON? = reason(try f.write("elf.json", Data([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]))) {} else {
            Issue.record("binary not reported as not JSON")
        }
        #expect(reason(try f.write("newer.json", try f.withVersion(3))) == .unsupportedVersion(3))
        if case .invalid(let why)? = reason(try f.write("no-id.json", try f.without("id"))) {
            #expect(why.contains("id"))
        } else { Issue.record("report without id not reported as invalid") }
    }

    @Test func unreadableFilesSayWhy() throws {
        let f = try Fixture()
        defer { try? FileManager.default.removeItem(atPath: f.dir) }
        let dangling = "\(f.dir)/dangling.json"
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "\(f.dir)/nowhere")
        if case .unreadable(let why)? = reason(dangling) { #expect(why.contains("No such file")) } else {
            Issue.record("dangling link not unreadable")
        }
        if case .unreadable(let why)? = reason(f.dir) { #expect(why.contains("directory")) } else {
            Issue.record("directory not unreadable")
        }
        // Permission bits stop only non-root users; root gets a real read.
        let locked = try f.write("locked.json", f.realJSON)
        chmod(locked, 0)
        if getuid() != 0 {
            if case .unreadable(let why)? = reason(locked) { #expect(why.contains("permission")) } else {
                Issue.record("mode 000 file not unreadable")
            }
        }
    }

    /// A FIFO named like a report is refused without waiting for a writer
    /// (`report list` and `report show` hung in open(2) forever).
    @Test func fifoIsRefusedWithoutBlocking() throws {
        let f = try Fixture()
        defer { try? FileManager.default.removeItem(atPath: f.dir) }
        let fifo = "\(f.dir)/crash-fifo.json"
        #expect(mkfifo(fifo, 0o600) == 0)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var entries: [ReportStore.Entry] = []
        Thread { entries = (try? ReportStore.list(directory: f.dir)) ?? []; done.signal() }.start()
        if done.wait(timeout: .now() + 10) == .timedOut {
            Issue.record("listing a directory with a FIFO blocked")
            let unblock = open(fifo, O_WRONLY | O_NONBLOCK)  // the blocked open(2) returns
            done.wait()
            close(unblock)
        }
        #expect(entries.compactMap(\.report).count == 1)
        if case .failure(let error)? = entries.first(where: { $0.path == fifo })?.result {
            #expect(error.description == "\(fifo): cannot read: not a regular file; give a report file")
        } else {
            Issue.record("the FIFO is not listed as a bad file")
        }
    }

    @Test func listingSkipsBadFilesAndKeepsGoing() throws {
        let f = try Fixture()
        defer { try? FileManager.default.removeItem(atPath: f.dir) }
        _ = try f.write("empty.json", Data())
        _ = try f.write("cut.json", f.realJSON.prefix(100))
        _ = try f.write("foreign.json", Data("{}".utf8))
        _ = try f.write("newer.json", try f.withVersion(7))
        _ = try f.write(".crash-x.json.tmp", f.realJSON.prefix(10))   // in-flight write: ignored
        _ = try f.write("notes.txt", Data("ignored".utf8))
        try FileManager.default.createSymbolicLink(atPath: "\(f.dir)/dangling.json", withDestinationPath: "/nonexistent")
        let entries = try ReportStore.list(directory: f.dir)
        #expect(entries.count == 6)
        #expect(entries.first?.path == f.good)
        #expect(entries.compactMap(\.report).count == 1)
        #expect(entries.dropFirst().allSatisfy { $0.report == nil })
    }

    @Test func listingDescendsOneLevelWhenAsked() throws {
        let f = try Fixture()
        defer { try? FileManager.default.removeItem(atPath: f.dir) }
        let run = "\(f.dir)/victim-c-20260101-000000-1"
        try FileManager.default.createDirectory(atPath: "\(run)/deeper", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: f.good, toPath: "\(run)/copy.json")
        try FileManager.default.copyItem(atPath: f.good, toPath: "\(run)/deeper/too-deep.json")
        #expect(try ReportStore.list(directory: f.dir).count == 1)
        let both = try ReportStore.list(directory: f.dir, includingSubdirectories: true)
        #expect(both.count == 2)
        #expect(both.allSatisfy { $0.report != nil })
    }
}
