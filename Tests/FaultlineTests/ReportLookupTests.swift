import Faultline
import Foundation
import Testing

/// `faultline report show ID`: ids and id prefixes are looked up in a
/// directory and its run directories.
@Suite struct ReportLookupTests {
    @Test func findsByIdAndPrefixAndExplainsMisses() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (path, _) = try Victims.crashC("null-deref", in: dir)
        let report = try ReportStore.load(path: path)

        #expect(try ReportStore.find(id: report.id, in: dir).report?.id == report.id)
        #expect(try ReportStore.find(id: String(report.id.prefix(4)).uppercased(), in: dir).path == path)

        // Two more reports whose ids share a prefix the real one lacks.
        let fake = report.id.hasPrefix("a") ? "bbbb" : "abcd"
        let run = "\(dir)/victim-c-20260101-000000-42"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path, toPath: "\(run)/crash-20260101T000000-42-\(fake)000000000001.json")
        try FileManager.default.copyItem(atPath: path, toPath: "\(run)/crash-20260101T000000-42-\(fake)000000000002.json")
        #expect(try ReportStore.find(id: "\(fake)000000000002", in: dir).path.hasSuffix("0002.json"))

        #expect(throws: ReportLookupError.self) { try ReportStore.find(id: fake, in: dir) }
        do {
            _ = try ReportStore.find(id: fake, in: dir)
        } catch {
            let text = "\(error)"
            #expect(!text.contains("\n"))
            #expect(text.contains("\(fake)000000000001") && text.contains("\(fake)000000000002"))
            #expect(text.contains("matches 2 reports"))
        }
        let missing = report.id.hasPrefix("f") ? "0000" : "ffff"
        #expect(throws: ReportLookupError.notFound(missing, dir)) { try ReportStore.find(id: missing, in: dir) }
        #expect(throws: ReportLookupError.notAnID("xyz!")) { try ReportStore.find(id: "xyz!", in: dir) }
        #expect(throws: ReportLookupError.noDirectory("\(dir)/nope")) { try ReportStore.find(id: "ab", in: "\(dir)/nope") }
    }

    /// `report show PATH` with a path that cannot be looked at says why; it
    /// said the path was "neither a report file nor a report id".
    @Test func unreadablePathsSayWhy() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createSymbolicLink(atPath: "\(dir)/loop.json", withDestinationPath: "\(dir)/loop.json")
        #expect(throws: ReportLookupError.unreadablePath("\(dir)/loop.json", "Too many levels of symbolic links")) {
            try ReportStore.find(id: "\(dir)/loop.json", in: dir)
        }
        #expect(throws: ReportLookupError.unreadablePath("\(dir)/gone/crash.json", "No such file or directory; check the path")) {
            try ReportStore.find(id: "\(dir)/gone/crash.json", in: dir)
        }
        let faultline = try BuildProducts.path("faultline")
        let show = try runProgram(faultline, ["report", "show", "--dir", dir, "\(dir)/loop.json"])
        #expect(show.stderr == "faultline: \(dir)/loop.json: cannot read: Too many levels of symbolic links\n")
        #expect(show.status == 66)
        // A file given as the directory to list: the cause, not Foundation's "error 256".
        try Data().write(to: URL(fileURLWithPath: "\(dir)/file"))
        let list = try runProgram(faultline, ["report", "list", "\(dir)/file"])
        #expect(list.stderr == "faultline: cannot read report directory \(dir)/file: Not a directory; run `faultline exec -- CMD` first or pass DIR\n")
    }

    @Test func renamedFilesAreFoundByTheIdInside() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (path, _) = try Victims.crashC("null-deref", in: dir)
        let id = try ReportStore.load(path: path).id
        let renamed = "\(dir)/my-crash.json"
        try FileManager.default.moveItem(atPath: path, toPath: renamed)
        #expect(try ReportStore.find(id: String(id.prefix(6)), in: dir).path == renamed)
    }

    @Test func idsComeFromFileNames() {
        #expect(ReportStore.idFromFileName("/x/crash-20261121T232221-6688-0699aecb79fb96e6.json") == "0699aecb79fb96e6")
        #expect(ReportStore.idFromFileName("/x/my-report.json") == nil)
        #expect(ReportStore.idFromFileName("/x/crash-1-2-0699aecb79fb96e6.txt") == nil)
    }
}
