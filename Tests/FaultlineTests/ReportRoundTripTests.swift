import Faultline
import Foundation
import Testing

/// A real report written by the C agent decodes into `Report` and encodes
/// back to the same JSON, field for field.
@Suite struct ReportRoundTripTests {
    @Test func agentReportSurvivesDecodeAndEncode() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (path, run) = try Victims.crashC("crash-with-threads", in: dir)
        #expect(run.signaled && run.status == SIGSEGV)

        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let report = try ReportStore.load(path: path)
        #expect(report.schema == "faultline.report")
        #expect(report.schemaVersion == 2)
        #expect(report.kind == "crash")
        #expect(report.signal?.name == "SIGSEGV")
        #expect(report.signal?.codeName == "SEGV_MAPERR")
        #expect(report.crashedThread?.main == true)
        #expect((report.threads ?? []).count >= 3)
        #expect(path.hasSuffix("-\(report.id).json"))

        let reencoded = try JSONEncoderFactory.plain().encode(report)
        let a = try JSONDecoder().decode(JSONValue.self, from: original)
        let b = try JSONDecoder().decode(JSONValue.self, from: reencoded)
        #expect(a == b, "re-encoded report differs from the agent's file")
        // And once more through Report: stable.
        let again = try JSONEncoderFactory.plain().encode(try ReportStore.decode(reencoded, path: "re-encoded"))
        #expect(again == reencoded)
    }

    @Test func unknownSectionsAreKeptVerbatim() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (path, _) = try Victims.crashC("null-deref", in: dir)
        var object = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        guard case .object(var o) = object else { Issue.record("report is not an object"); return }
        o["future_detector"] = .object(["nested_key": .array([.number(1), .string("x")]), "snake_case_inner": .bool(true)])
        object = .object(o)
        let data = try JSONEncoder().encode(object)
        let report = try ReportStore.decode(data, path: "with-section.json")
        #expect(report.sections["future_detector"] == o["future_detector"])
        let back = try JSONDecoder().decode(JSONValue.self, from: JSONEncoderFactory.plain().encode(report))
        #expect(back == object)
    }
}
