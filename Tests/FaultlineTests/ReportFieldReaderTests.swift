@testable import Faultline
import Foundation
import Testing

/// `ReportFieldReader`, the fast path of `report groups`: on real reports
/// of every kind it gives exactly the records the full decoder gives, and
/// on anything it is not sure of it answers nil, so the grouper falls back
/// to the full decoder (which then says what is wrong).
@Suite struct ReportFieldReaderTests {
    /// Real reports, written once for the suite by real victims under
    /// `faultline exec` (which signs them): a crash whose phase and
    /// annotation need escapes, an abort, a heap error, a leak report with
    /// two groups, an uncaught C++ exception, a deadlock, a hang; and a C++
    /// report written by the agent alone, which carries no signature.
    static let fixture: Result<[String: String], FixtureError> = {
        do { return .success(try makeFixture()) } catch { return .failure(FixtureError(description: "\(error)")) }
    }()

    struct FixtureError: Error, CustomStringConvertible { var description: String }

    /// The phase the crash sets: a quote, a backslash, an é, a tab, a line break.
    static let trickyPhase = "ch\u{e9}\"ck\\out\tx\ny"

    /// The fixture's folder, removed when the test process exits (a suite
    /// has no teardown, and the fixture is shared by its tests).
    nonisolated(unsafe) static var fixtureDirectory: String?

    private static func makeFixture() throws -> [String: String] {
        let dir = try makeTemporaryDirectory("faultline-field-reader")
        fixtureDirectory = dir
        atexit { if let d = ReportFieldReaderTests.fixtureDirectory { try? FileManager.default.removeItem(atPath: d) } }
        let faultline = try BuildProducts.path("faultline")
        let victim = try SignatureVictim.build(in: dir)
        func exec(_ name: String, _ command: [String], options: [String] = []) throws {
            _ = try runProgram(faultline, ["exec", "--report-dir", "\(dir)/r/\(name)"] + options + ["--"] + command)
        }
        // An annotation whose value holds what a bracket counter must not count.
        try exec("crash", [victim, "segv", trickyPhase], options: ["--annotate", "note=a\"}]\\{[ \u{e9}"])
        try exec("abort", [victim, "abort"])
        try exec("heap", [victim, "double-free"])
        try exec("leak", [victim, "leaks"])
        try exec("cxx", [try BuildProducts.path("victim-cxx"), "future"])
        try exec("deadlock", [try BuildProducts.path("victim-hang"), "abba"])
        try exec("hang", [try BuildProducts.path("victim-hang"), "cut-stacks", "3000"])
        try FileManager.default.createDirectory(atPath: "\(dir)/r/unsigned", withIntermediateDirectories: true)
        _ = try Victims.cxx("future", in: "\(dir)/r/unsigned")
        // By kind, the run's own kind first: `abort` and `heap` end in crashes too.
        var byKind: [String: String] = [:]
        for file in try ReportTree.files(under: "\(dir)/r") {
            let r = try ReportStore.load(path: file.path)
            let folder = String(file.relative.prefix { $0 != "/" })
            let key = folder == "unsigned" ? "unsigned" : (folder == "crash" || r.kind != "crash" ? r.kind : "\(folder)/\(r.kind)")
            byKind[key] = byKind[key] ?? file.path
        }
        return byKind
    }

    private func files() throws -> [String: String] {
        try Self.fixture.get()
    }

    private func fast(_ data: Data) -> [GroupRecord]? {
        data.withUnsafeBytes { ReportFieldReader.records($0, supportedSchemaVersion: ReportStore.supportedSchemaVersion) }
    }

    /// What the full decoder gives for the same bytes (nil: it refuses them).
    private func full(_ data: Data) -> [GroupRecord]? {
        guard let r = try? ReportStore.decode(data, path: "test"), let s = r.signature else { return nil }
        return GroupRecord.records(of: r, signature: s)
    }

    @Test func givesWhatTheFullDecoderGivesOnEveryKind() throws {
        let files = try files()
        let kinds: Set<String> = ["crash", "double_free", "leak", "cxx_exception", "deadlock", "hang", "hang_recovered"]
        #expect(Set(files.keys).isSuperset(of: kinds), "\(files.keys.sorted())")
        for (kind, path) in files where kind != "unsigned" {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let expected = try #require(full(data), "\(kind): the full decoder read no signed report from \(path)")
            #expect(fast(data) == expected, "\(kind) \(path)")
        }
        // The leak report counts once per group: two sites, two records.
        let leakPath = try #require(files["leak"])
        let leak = try #require(fast(try Data(contentsOf: URL(fileURLWithPath: leakPath))))
        #expect(leak.count == 2, "\(leak)")
        #expect(Set(leak.map(\.signatureID)).count == 2)
        #expect(leak.allSatisfy { $0.signatureText.hasPrefix("leak definitely_lost | ") }, "\(leak)")
        #expect(Set(leak.map { $0.signatureText.split(separator: "|")[1].trimmingCharacters(in: .whitespaces) }) == ["leak_node", "leak_name"])
    }

    @Test func decodesStringEscapesAsTheFullDecoderDoes() throws {
        let path = try #require(try files()["crash"])
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let records = try #require(fast(data))
        #expect(records.first?.phase == Self.trickyPhase)
        #expect(records == full(data))
        // The same fields written with every escape JSON has: \u00e9, a
        // surrogate pair, \/, \b, \f, \r, upper-case hex.
        var text = String(decoding: data, as: UTF8.self)
        let phase = try #require(text.range(of: #""phase":"(\\.|[^"\\])*""#, options: .regularExpression))
        text.replaceSubrange(phase, with: #""phase":"caf\u00e9 \ud83d\ude00 a\/b \b\f\r \u00C9 \"q\" \\""#)
        let host = try #require(text.range(of: #""host":"(\\.|[^"\\])*""#, options: .regularExpression))
        text.replaceSubrange(host, with: #""host":"m\u0061chine\n1""#)
        let escaped = Data(text.utf8)
        let got = try #require(fast(escaped))
        #expect(got.first?.phase == "caf\u{e9} \u{1f600} a/b \u{8}\u{c}\r \u{c9} \"q\" \\")
        #expect(got.first?.machine == "machine\n1")
        #expect(got == full(escaped))
    }

    @Test func aReportWithoutASignatureIsLeftToTheFullDecoder() throws {
        let path = try #require(try files()["unsigned"])
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try ReportStore.decode(data, path: path).signature == nil)
        #expect(fast(data) == nil)
    }

    @Test func everyTruncationIsNo() throws {
        let path = try #require(try files()["crash"])
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        while let last = data.last, last == 0x0a || last == 0x20 { data.removeLast() }
        #expect(fast(data) != nil)
        // Every cut, in steps that land inside keys, strings, numbers and
        // escapes alike, and each of the last 64 bytes.
        let cuts = Array(stride(from: 0, to: data.count, by: 3)) + Array(max(0, data.count - 64)..<data.count)
        for n in cuts {
            let cut = data.prefix(n)
            #expect(fast(cut) == nil, "a cut at \(n) of \(data.count) bytes was read")
        }
        // The full decoder says what the fallback will report.
        #expect(throws: ReportLoadError.self) { try ReportStore.decode(data.prefix(data.count / 2), path: "cut.json") }
    }

    /// Real crash bytes with `pattern` replaced by `with` (the pattern must match).
    private func crashEdited(_ pattern: String, _ with: String) throws -> Data {
        let path = try #require(try files()["crash"])
        var text = try String(contentsOfFile: path, encoding: .utf8)
        let range = try #require(text.range(of: pattern, options: .regularExpression), "\(pattern) not in the crash report")
        text.replaceSubrange(range, with: with)
        return Data(text.utf8)
    }

    @Test(arguments: [
        ("bytes after the object", #"\}\s*$"#, "}x"),
        ("a second object", #"\}\s*$"#, "}{}"),
        ("schema_version 0", #""schema_version":2"#, #""schema_version":0"#),
        ("schema_version 2.0", #""schema_version":2"#, #""schema_version":2.0"#),
        ("schema_version from the future", #""schema_version":2"#, #""schema_version":99"#),
        ("schema_version as a string", #""schema_version":2"#, #""schema_version":"2""#),
        ("another schema", #""schema":"faultline.report""#, #""schema":"other.report""#),
        ("time with an exponent", #""time_unix_ms":[0-9]+"#, #""time_unix_ms":1.7e12"#),
        ("time negative", #""time_unix_ms":[0-9]+"#, #""time_unix_ms":-5"#),
        ("time too big for 64 bits", #""time_unix_ms":[0-9]+"#, #""time_unix_ms":99999999999999999999999"#),
        ("kind a number", #""kind":"crash""#, #""kind":7"#),
        ("host an object", #""host":"(\\.|[^"\\])*""#, #""host":{"name":"m"}"#),
        ("phase a number", #""phase":"(\\.|[^"\\])*""#, #""phase":12"#),
        ("an invalid escape", #""host":"(\\.|[^"\\])*""#, #""host":"a\qb""#),
        ("a lone high surrogate", #""host":"(\\.|[^"\\])*""#, #""host":"a\ud800b""#),
        ("a short \\u escape", #""host":"(\\.|[^"\\])*""#, #""host":"a\u12""#),
        ("no process pid", #""pid":[0-9]+,"#, ""),
        ("no id", #""id":"[0-9a-f]+","#, ""),
        ("no signature id", #""id":"[0-9a-f]{16}","stack""#, #""stack""#),
        ("a signature id not a string", #""id":"[0-9a-f]{16}","stack""#, #""id":null,"stack""#),
        ("a missing colon", #""kind":"#, #""kind" "#),
        ("a trailing comma", #"\}\s*$"#, ",}"),
    ])
    func saysNoOnOddJSON(_ what: String, _ pattern: String, _ with: String) throws {
        let data = try crashEdited(pattern, with)
        #expect(fast(data) == nil, "\(what) was read by the fast path")
    }

    /// The documented limit: inside a value it skips, it checks brackets
    /// and quotes, not the grammar, so such damage does not stop grouping.
    @Test func damageInsideASkippedValueThatKeepsItBalancedIsGroupedByItsFields() throws {
        let data = try crashEdited(#""crashed_thread":\{"#, #""crashed_thread":{"tid" 1 2 3 ::,"#)
        #expect((try? ReportStore.decode(data, path: "damaged")) == nil)
        let crashPath = try #require(try files()["crash"])
        let original = try Data(contentsOf: URL(fileURLWithPath: crashPath))
        #expect(fast(data) == fast(original))
    }

    @Test func anEmptyOrForeignFileIsNo() {
        for text in ["", "   \n", "[]", "null", "{}", "\"faultline.report\"", "{\"schema\":\"faultline.report\"}"] {
            #expect(fast(Data(text.utf8)) == nil, "\(text.debugDescription)")
        }
    }

    @Test func theGrouperFallsBackOnWhatTheFastPathRefuses() throws {
        // A report the full decoder reads but the fast path will not (no
        // stored signature) is still grouped, signed on the spot.
        let files = try files()
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let unsigned = try #require(files["unsigned"])
        let crash = try #require(files["crash"])
        try FileManager.default.copyItem(atPath: unsigned, toPath: "\(dir)/a.json")
        try FileManager.default.copyItem(atPath: crash, toPath: "\(dir)/b.json")
        // And one the full decoder refuses: named, not grouped.
        try Data(try Data(contentsOf: URL(fileURLWithPath: crash)).prefix(300)).write(to: URL(fileURLWithPath: "\(dir)/c.json"))
        let outcome = try ReportGrouper(symbolicator: nil).group([dir])
        #expect(outcome.groups.map(\.count).reduce(0, +) == 2)
        #expect(Set(outcome.groups.map(\.kind)) == ["cxx_exception", "crash"])
        #expect(outcome.skipped.count == 1 && outcome.skipped.first?.contains("c.json") == true, "\(outcome.skipped)")
    }
}
