import Faultline
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Signatures, groups, annotations, and Sentry and OTLP export and upload,
/// end to end: real victims under `faultline exec`, the real CLI, Relay's
/// own normaliser and OTLP's own messages (scripts/export-refs), and a real
/// HTTP server on loopback.
@Suite(.serialized) struct ExportTests {
    private func faultline(_ args: [String], environment: [String: String] = [:]) throws -> Finished {
        try runProgram(try BuildProducts.path("faultline"), args, environment: environment)
    }

    /// Runs `program ARGS` under `faultline exec` into `dir`.
    @discardableResult
    private func exec(_ program: String, _ args: [String], into dir: String, options: [String] = []) throws -> Finished {
        try faultline(["exec", "--report-dir", dir] + options + ["--", program] + args)
    }

    private func groups(_ args: [String]) throws -> [[String: Any]] {
        let run = try faultline(["report", "groups", "--json"] + args)
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]], "\(run.stdout)")
    }

    private func reports(in dir: String) throws -> [String] {
        try ReportTree.files(under: dir).map(\.path)
    }

    @Test func theSameCrashFiveTimesIsFiveReportsInOneGroup() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let victim = try SignatureVictim.build(in: dir)
        for i in 0..<5 { try exec(victim, ["segv"], into: "\(dir)/reports/run-\(i)") }
        let files = try reports(in: "\(dir)/reports")
        #expect(files.count == 5)
        for f in files {
            // exec kept the signature it computed in the file.
            let r = try ReportStore.load(path: f)
            #expect(r.schemaVersion == 2)
            #expect(r.signature?.text == "crash SIGSEGV | crash_here | main")
        }
        let g = try groups(["\(dir)/reports"])
        #expect(g.count == 1)
        #expect(g.first?["count"] as? Int == 5)
        #expect(g.first?["kind"] as? String == "crash")
        #expect((g.first?["processes"] as? [String]) == ["sigvictim"])
        #expect((g.first?["machines"] as? [String])?.count == 1)
        // The index answers the second time; a report added is still read.
        try exec(victim, ["segv"], into: "\(dir)/reports/run-5")
        #expect(try groups(["\(dir)/reports"]).first?["count"] as? Int == 6)
        #expect(FileManager.default.fileExists(atPath: GroupIndex.path(in: "\(dir)/reports")))
    }

    @Test func anotherSignalIsAnotherGroupAndARebuildIsTheSameOne() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let victim = try SignatureVictim.build(in: dir)
        let rebuilt = try SignatureVictim.build(in: dir, extra: true)
        try exec(victim, ["segv"], into: "\(dir)/r/a")
        try exec(rebuilt, ["segv"], into: "\(dir)/r/b")
        try exec(victim, ["abort"], into: "\(dir)/r/c")
        // The rebuild moved the crashing function: other offsets, same signature.
        let a = try ReportStore.load(path: try reports(in: "\(dir)/r/a")[0])
        let b = try ReportStore.load(path: try reports(in: "\(dir)/r/b")[0])
        #expect(a.crashedThread?.frames.first?.offset != b.crashedThread?.frames.first?.offset)
        let g = try groups(["\(dir)/r"])
        let byText = Dictionary(uniqueKeysWithValues: g.map { ($0["text"] as! String, $0["count"] as! Int) })
        #expect(byText == ["crash SIGSEGV | crash_here | main": 2, "crash SIGABRT | crash_here | main": 1])
    }

    @Test func annotationsAndPhaseReachEveryReportAndSplitGroups() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let victim = try SignatureVictim.build(in: dir)
        try exec(victim, ["segv", "checkout"], into: "\(dir)/r/1", options: ["--annotate", "ci_job=77", "--annotate", "branch=main=x"])
        try exec(victim, ["segv", "startup"], into: "\(dir)/r/2")
        try exec(victim, ["double-free", "checkout"], into: "\(dir)/r/3")
        let crash = try ReportStore.load(path: try reports(in: "\(dir)/r/1")[0])
        #expect(crash.sections["phase"]?.stringValue == "checkout")
        #expect(crash.sections["annotations"]?["order"]?.stringValue == "42")
        #expect(crash.sections["annotations"]?["ci_job"]?.stringValue == "77")
        #expect(crash.sections["annotations"]?["branch"]?.stringValue == "main=x")
        #expect(crash.sections["host"]?.stringValue?.isEmpty == false)
        // The malloc shim's report carries them too.
        let heap = try reports(in: "\(dir)/r/3").map { try ReportStore.load(path: $0) }.first { $0.kind == "double_free" }
        #expect(heap?.sections["phase"]?.stringValue == "checkout")
        #expect(heap?.sections["annotations"]?["order"]?.stringValue == "42")
        #expect(try groups(["\(dir)/r/1", "\(dir)/r/2"]).count == 1)
        let split = try groups(["--by-phase", "\(dir)/r/1", "\(dir)/r/2"])
        #expect(Set(split.compactMap { $0["phase"] as? String }) == ["checkout", "startup"])
        let bad = try faultline(["exec", "--annotate", "novalue", "--", victim, "segv"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--annotate novalue has no KEY= before its value"))
    }

    /// Reports of several kinds: crashes and a heap error through exec
    /// (signed there), a leak, and an uncaught C++ exception written by the
    /// agent alone (signed when exported).
    private func manyKinds(in dir: String) throws -> String {
        let victim = try SignatureVictim.build(in: dir)
        try exec(victim, ["segv", "checkout"], into: "\(dir)/r/crash", options: ["--annotate", "ci_job=77"])
        try exec(victim, ["abort"], into: "\(dir)/r/abort")
        try exec(victim, ["double-free"], into: "\(dir)/r/heap")
        try exec(victim, ["leak"], into: "\(dir)/r/leak")
        try FileManager.default.createDirectory(atPath: "\(dir)/r/cxx", withIntermediateDirectories: true)
        _ = try Victims.cxx("future", in: "\(dir)/r/cxx")
        return "\(dir)/r"
    }

    @Test func sentryEnvelopesPassRelaysNormaliser() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try manyKinds(in: dir)
        let kinds = Set(try reports(in: input).map { try ReportStore.load(path: $0).kind })
        #expect(kinds.isSuperset(of: ["crash", "double_free", "leak", "cxx_exception"]), "\(kinds)")
        let run = try faultline(["report", "export", "--format", "sentry", "-o", "\(dir)/out", input])
        #expect(run.status == 0, "\(run.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: "\(dir)/out").sorted().map { "\(dir)/out/\($0)" }
        #expect(files.count == (try reports(in: input)).count)
        let check = try ExportRefs.run("check_sentry.py", files)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == files.count)
        // The crash's event, as Sentry gets it.
        let crash = try ReportStore.load(path: try reports(in: "\(input)/crash")[0])
        let envelope = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/out/\(crash.id).envelope"))
        let lines = envelope.split(separator: 0x0a)
        let event = try #require(try JSONSerialization.jsonObject(with: lines[2]) as? [String: Any])
        #expect(event["fingerprint"] as? [String] == [crash.signature!.id])
        let tags = try #require(event["tags"] as? [String: String])
        #expect(tags["kind"] == "crash" && tags["detector"] == "crash" && tags["phase"] == "checkout" && tags["ci_job"] == "77")
        let exception = try #require(((event["exception"] as? [String: Any])?["values"] as? [[String: Any]])?.first)
        #expect(exception["type"] as? String == "SIGSEGV")
        let frames = try #require((exception["stacktrace"] as? [String: Any])?["frames"] as? [[String: Any]])
        #expect(frames.last?["function"] as? String == "crash_here")
        #expect((frames.last?["package"] as? String)?.hasSuffix("/sigvictim") == true)
        #expect(frames.last?["lineno"] as? Int != nil)
        let images = try #require((event["debug_meta"] as? [String: Any])?["images"] as? [[String: Any]])
        let exe = try #require(images.first { ($0["code_file"] as? String)?.hasSuffix("/sigvictim") == true })
        let buildID = try #require(crash.images?.first { $0.path.hasSuffix("/sigvictim") }?.buildId)
        #expect(exe["code_id"] as? String == buildID)
        #expect(exe["debug_id"] as? String == DebugID.fromBuildID(buildID))
    }

    @Test func debugIDsAreTheBuildIDsFirstBytesAsALittleEndianGUID() {
        #expect(DebugID.fromBuildID("00112233445566778899aabbccddeeff01020304") == "33221100-5544-7766-8899-aabbccddeeff")
        #expect(DebugID.fromBuildID("0011223344556677") == "33221100-5544-7766-0000-000000000000")
        #expect(DebugID.fromBuildID("xyz") == nil)
    }

    @Test func dsnsGiveTheEnvelopeURLAndKey() throws {
        let d = try SentryDSN("https://abc123@o1.ingest.example.com/42")
        #expect(d.envelopeURL.absoluteString == "https://o1.ingest.example.com/api/42/envelope/")
        #expect(d.authHeader(client: "faultline/1").contains("sentry_key=abc123"))
        #expect(try SentryDSN("http://k@127.0.0.1:9000/prefix/7").envelopeURL.absoluteString == "http://127.0.0.1:9000/prefix/api/7/envelope/")
        #expect(throws: SentryDSN.ParseError.self) { try SentryDSN("https://o1.example.com/42") }
    }

    @Test func otlpFilesParseAsLogsData() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try manyKinds(in: dir)
        let run = try faultline(["report", "export", "--format", "otlp-json", "-o", "\(dir)/out", input])
        #expect(run.status == 0, "\(run.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: "\(dir)/out").sorted().map { "\(dir)/out/\($0)" }
        #expect(files.count == (try reports(in: input)).count)
        let check = try ExportRefs.run("check_otlp.py", files)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == files.count)
    }

    /// Three crash reports, and the DSN of `port`.
    private func threeCrashes(in dir: String) throws -> String {
        let victim = try SignatureVictim.build(in: dir)
        for i in 0..<3 { try exec(victim, [i == 1 ? "abort" : "segv"], into: "\(dir)/r/\(i)") }
        return "\(dir)/r"
    }

    @Test func anUploadAgainstAServerThatFailsTwiceSendsEachReportOnce() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try threeCrashes(in: dir)
        let server = try UploadServer(key: "k3y", failFirst: 2, in: dir)
        let dsn = "http://k3y@127.0.0.1:\(server.port)/42"
        let run = try faultline(["report", "upload", "--dsn", dsn, "--backoff-ms", "20", input])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("faultline: 3 report(s) uploaded to http://127.0.0.1:\(server.port)/api/42/envelope/"))
        let requests = server.requests()
        #expect(requests.map { $0["status"] as? Int } == [503, 503, 200, 200, 200], "\(requests)")
        for r in requests where r["status"] as? Int == 200 { #expect((r["problems"] as? [String]) == [], "\(r)") }
        let accepted = requests.compactMap { $0["status"] as? Int == 200 ? $0["event_id"] as? String : nil }
        #expect(Set(accepted).count == 3)
        // Sent reports are not sent again.
        let again = try faultline(["report", "upload", "--dsn", dsn, input])
        #expect(again.status == 0)
        #expect(again.stderr.contains("0 report(s) uploaded") && again.stderr.contains("3 sent before"), "\(again.stderr)")
        #expect(server.requests().count == 5)
        // FAULTLINE_SENTRY_DSN stands in for --dsn.
        let viaEnv = try faultline(["report", "upload", input], environment: ["FAULTLINE_SENTRY_DSN": dsn])
        #expect(viaEnv.stderr.contains("3 sent before"), "\(viaEnv.stderr)")
    }

    @Test func anUploadToAClosedPortLosesNothingAndSaysSoInOneLine() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try threeCrashes(in: dir)
        let before = try reports(in: input).map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let port = try Self.closedPort()
        let run = try faultline(["report", "upload", "--dsn", "http://k3y@127.0.0.1:\(port)/42", "--retries", "1", "--backoff-ms", "10", input])
        #expect(run.status == 75)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(run.stderr)")
        #expect(lines.first?.hasPrefix("faultline: 3 of 3 report(s) not uploaded to http://127.0.0.1:\(port)/api/42/envelope/ (") == true, "\(run.stderr)")
        #expect(run.stderr.contains("they are kept and the next upload sends them"))
        #expect(try reports(in: input).map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
        // The next upload, with the server up, sends all three.
        let server = try UploadServer(key: "k3y", in: dir)
        let next = try faultline(["report", "upload", "--dsn", "http://k3y@127.0.0.1:\(server.port)/42", input])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(server.requests().filter { $0["status"] as? Int == 200 }.count == 3)
    }

    @Test func otlpUploadsCarryTheExceptionConventions() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try threeCrashes(in: dir)
        let server = try UploadServer(key: "unused", in: dir)
        let run = try faultline(["report", "upload", "--otlp", "http://127.0.0.1:\(server.port)/v1/logs", input])
        #expect(run.status == 0, "\(run.stderr)")
        let records = server.requests().flatMap { ($0["records"] as? [[String: String]]) ?? [] }
        #expect(records.count == 3)
        #expect(Set(records.compactMap { $0["exception.type"] }) == ["SIGSEGV", "SIGABRT"])
        for r in records {
            #expect(r["exception.stacktrace"]?.contains("crash_here") == true)
            #expect(r["faultline.kind"] == "crash")
            #expect(r["faultline.signature"]?.count == 16)
        }
    }

    /// A loopback port nothing listens on (bound, then closed).
    static func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}
