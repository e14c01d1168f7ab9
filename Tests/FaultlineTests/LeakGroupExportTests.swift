import Faultline
import Foundation
import Testing

/// A leak report holds one bug per leak group: `report show` prints each
/// group's signature, Sentry gets one event per group (its fingerprint the
/// group's signature), OTLP one log record per group. Checked with a real
/// leak from the signature victim under `faultline exec`, Relay's own
/// normaliser, OTLP's own messages, and a real HTTP server on loopback.
@Suite(.serialized) struct LeakGroupExportTests {
    private func faultline(_ args: [String]) throws -> Finished {
        try runProgram(try BuildProducts.path("faultline"), args)
    }

    /// A leak report with two groups (`leaks`: two allocation sites) and a
    /// crash report beside it; returns the folder and the leak report.
    private func leakAndCrash(in dir: String) throws -> (input: String, leak: Report) {
        let victim = try SignatureVictim.build(in: dir)
        _ = try faultline(["exec", "--report-dir", "\(dir)/r/leak", "--", victim, "leaks"])
        _ = try faultline(["exec", "--report-dir", "\(dir)/r/crash", "--", victim, "segv"])
        let leak = try ReportTree.files(under: "\(dir)/r/leak").map { try ReportStore.load(path: $0.path) }.first { $0.kind == "leak" }
        let report = try #require(leak, "the victim left no leak report")
        try #require(report.signature?.leakGroups?.count == 2, "\(String(describing: report.signature))")
        return ("\(dir)/r", report)
    }

    @Test func reportShowPrintsEachLeakGroupsSignature() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (input, leak) = try leakAndCrash(in: dir)
        let file = try #require(try ReportTree.files(under: "\(input)/leak").first { $0.path.contains("/leak-") }?.path)
        let run = try faultline(["report", "show", file])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let header = try #require(lines.firstIndex(of: "leak group signatures (2):"), "\(run.stdout)")
        let groups = try #require(leak.signature?.leakGroups)
        let shown = Array(lines[header + 1...header + 2])
        for g in groups {
            #expect(shown.contains { $0.hasPrefix("  \(g.id)  \(g.text)  (") && $0.hasSuffix(" definitely lost)") }, "\(g.text) not in \(shown)")
        }
        #expect(Set(groups.map { $0.frames.first }) == ["leak_node", "leak_name"])
        // A crash has no such lines.
        let crash = try #require(try ReportTree.files(under: "\(input)/crash").first?.path)
        #expect(!(try faultline(["report", "show", crash])).stdout.contains("leak group signatures"))
    }

    /// The event and the attached report of an envelope file.
    private func envelope(_ path: String) throws -> (event: [String: Any], attachment: [String: Any]) {
        let lines = try Data(contentsOf: URL(fileURLWithPath: path)).split(separator: 0x0a)
        let event = try #require(try JSONSerialization.jsonObject(with: lines[2]) as? [String: Any])
        let attachment = try #require(try JSONSerialization.jsonObject(with: lines[4]) as? [String: Any])
        return (event, attachment)
    }

    @Test func sentryGetsOneEventPerLeakGroup() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (input, leak) = try leakAndCrash(in: dir)
        let run = try faultline(["report", "export", "--format", "sentry", "-o", "\(dir)/out", input])
        #expect(run.status == 0, "\(run.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: "\(dir)/out").sorted()
        let leakFiles = names.filter { $0.hasPrefix(leak.id) }
        #expect(leakFiles == ["\(leak.id)-g0.envelope", "\(leak.id)-g1.envelope"], "\(names)")
        #expect(names.count == leakFiles.count + (try ReportTree.files(under: "\(input)/crash")).count)
        let check = try ExportRefs.run("check_sentry.py", names.map { "\(dir)/out/\($0)" })
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == names.count)
        let groups = try #require(leak.signature?.leakGroups)
        var fingerprints: [String] = [], eventIDs: Set<String> = []
        for name in leakFiles {
            let (event, attachment) = try envelope("\(dir)/out/\(name)")
            let fingerprint = try #require((event["fingerprint"] as? [String])?.first)
            fingerprints.append(fingerprint)
            eventIDs.insert(try #require(event["event_id"] as? String))
            let group = try #require(groups.first { $0.id == fingerprint }, "fingerprint \(fingerprint) is no group's")
            #expect((event["tags"] as? [String: String])?["faultline.signature"] == group.id)
            #expect((event["tags"] as? [String: String])?["leak.class"] == "definitely_lost")
            let exception = try #require(((event["exception"] as? [String: Any])?["values"] as? [[String: Any]])?.first)
            #expect(exception["type"] as? String == "leak")
            #expect((exception["value"] as? String)?.hasSuffix(" in 1 block(s) definitely lost") == true, "\(exception)")
            // The group's allocation stack, innermost last as Sentry orders frames.
            let frames = try #require((exception["stacktrace"] as? [String: Any])?["frames"] as? [[String: Any]])
            #expect(frames.map { $0["function"] as? String }.contains(group.frames.first), "\(frames)")
            // Each event carries the report with its own group only.
            #expect((attachment["groups"] as? [Any])?.count == 1)
            #expect(attachment["id"] as? String == leak.id)
        }
        #expect(Set(fingerprints) == Set(groups.map(\.id)))
        #expect(eventIDs.count == 2)
    }

    @Test func otlpGetsOneLogRecordPerLeakGroup() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (input, leak) = try leakAndCrash(in: dir)
        let run = try faultline(["report", "export", "--format", "otlp-json", "-o", "\(dir)/out", "\(input)/leak"])
        #expect(run.status == 0, "\(run.stderr)")
        let file = "\(dir)/out/\(leak.id).otlp.json"
        let check = try ExportRefs.run("check_otlp.py", [file])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let logs = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
        let records = ((logs["resourceLogs"] as? [[String: Any]]) ?? []).flatMap { ($0["scopeLogs"] as? [[String: Any]]) ?? [] }
            .flatMap { ($0["logRecords"] as? [[String: Any]]) ?? [] }
        let attrs = records.map { r in
            Dictionary(uniqueKeysWithValues: ((r["attributes"] as? [[String: Any]]) ?? []).map {
                ($0["key"] as! String, (($0["value"] as? [String: Any])?.values.first as? String) ?? "")
            })
        }
        #expect(records.count == 2)
        #expect(Set(attrs.compactMap { $0["faultline.signature"] }) == Set(try #require(leak.signature?.leakGroups).map(\.id)))
        #expect(Set(attrs.compactMap { $0["faultline.leak_group"] }) == ["0", "1"])
        #expect(attrs.allSatisfy { $0["exception.type"] == "leak" && $0["faultline.report_id"] == leak.id })
    }

    @Test func anUploadSendsEachGroupOnceAndResumesAHalfSentReport() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (input, leak) = try leakAndCrash(in: dir)
        let server = try UploadServer(key: "k3y", in: dir)
        let dsn = "http://k3y@127.0.0.1:\(server.port)/42"
        let run = try faultline(["report", "upload", "--dsn", dsn, "\(input)/leak"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("1 report(s) uploaded to http://127.0.0.1:\(server.port)/api/42/envelope/ as 2 event(s), one per leak group"), "\(run.stderr)")
        let accepted = server.requests().filter { $0["status"] as? Int == 200 }
        #expect(accepted.count == 2)
        for r in accepted { #expect((r["problems"] as? [String]) == [], "\(r)") }
        #expect(Set(accepted.compactMap { $0["event_id"] as? String }).count == 2)
        // The ledger names each group; one forgotten is the only one sent again.
        let ledgerPath = "\(input)/leak/\(SentLedger.fileName)"
        let ledger = try String(contentsOfFile: ledgerPath, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(ledger.map { $0.split(separator: " ").last.map(String.init) } == ["\(leak.id)-g0", "\(leak.id)-g1"], "\(ledger)")
        try (ledger[0] + "\n").write(toFile: ledgerPath, atomically: true, encoding: .utf8)
        let resumed = try faultline(["report", "upload", "--dsn", dsn, "\(input)/leak"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(server.requests().count == 3)
        let again = try faultline(["report", "upload", "--dsn", dsn, "\(input)/leak"])
        #expect(again.stderr.contains("0 report(s) uploaded") && again.stderr.contains("1 sent before"), "\(again.stderr)")
        #expect(server.requests().count == 3)
    }

    @Test func aServerThatFailsTwiceGetsEachGroupAndReportOnce() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (input, _) = try leakAndCrash(in: dir)
        let reports = try ReportTree.files(under: input).count
        let server = try UploadServer(key: "k3y", failFirst: 2, in: dir)
        let run = try faultline(["report", "upload", "--dsn", "http://k3y@127.0.0.1:\(server.port)/42", "--backoff-ms", "20", input])
        #expect(run.status == 0, "\(run.stderr)")
        let requests = server.requests()
        // Two 503s, then each event once: two leak groups and the crash report(s).
        let events = reports + 1
        #expect(requests.map { $0["status"] as? Int } == [503, 503] + Array(repeating: 200, count: events), "\(requests)")
        let accepted = requests.compactMap { $0["status"] as? Int == 200 ? $0["event_id"] as? String : nil }
        #expect(Set(accepted).count == events)
        for r in requests where r["status"] as? Int == 200 { #expect((r["problems"] as? [String]) == [], "\(r)") }
    }
}
