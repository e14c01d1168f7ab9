import Foundation
import Testing

/// One suppressions file, read both ways it is read: by `faultline exec
/// --suppressions FILE` before the program starts, and by the malloc shim
/// (LD_PRELOAD) at start-up in a real victim. Both must name the same first
/// bad line for the same reason, with the same value and advice; the shim
/// only adds that it ignores the line. A kind, comment or blank rule, limit
/// or message known to one reader only makes a case fail here.
@Suite struct SuppressionsAgreementTests {
    /// A bad file: its bytes, and the line both readers must name first.
    struct BadFile: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: Data
        let badLine: Int
        var testDescription: String { name }
        init(_ name: String, _ text: String, badLine: Int) { self.init(name, Data(text.utf8), badLine: badLine) }
        init(_ name: String, _ bytes: Data, badLine: Int) { self.name = name; self.bytes = bytes; self.badLine = badLine }
    }

    static let badFiles: [BadFile] = [
        BadFile("no kind", "# a comment\n\n  \t\nvictim_free_again\n", badLine: 4),
        BadFile("unknown kind", "leak:x\nuse_after_free:victim_free_again\n", badLine: 2),
        BadFile("kind in capitals", "Leak:x\n", badLine: 1),
        BadFile("empty pattern", "double_free:x\ndouble_free:\n", badLine: 2),
        BadFile("pattern of blanks", "double_free: \t \n", badLine: 1),
        BadFile("pattern too long", "leak:" + String(repeating: "x", count: 256) + "\n", badLine: 1),
        BadFile("more than 256", String(repeating: "leak:x\n", count: 257), badLine: 257),
        BadFile("CRLF lines", "leak:x\r\n\r\nbad\r\n", badLine: 3),
        BadFile("leading carriage return", "\rleak:x\nbad\n", badLine: 2),
        BadFile("NUL byte", Data("leak:a".utf8) + Data([0]) + Data("b\nbad\n".utf8), badLine: 1),
        BadFile("control characters", "leak\u{1B}[31m:x\n", badLine: 1),
        BadFile("C1 control and non-ASCII", "l\u{9B}eak:ünïcode\n", badLine: 1),
        BadFile("invalid UTF-8", Data("leak".utf8) + Data([0xFF, 0xC3]) + Data(":x\n".utf8), badLine: 1),
        BadFile("long bad line", String(repeating: "y", count: 300) + "\n", badLine: 1),
        // Exactly the most either reads: all of it is checked, by both.
        BadFile("exactly 256 KiB", String(repeating: "#" + String(repeating: "-", count: 1022) + "\n", count: 255)
            + String(repeating: "#", count: 1019) + "\nbad\n", badLine: 257),
    ]

    private func file(_ bytes: Data, in dir: String) throws -> String {
        let path = "\(dir)/agreement.supp"
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// exec's one line for the file (nil when it ran the program).
    private func execLine(_ path: String, in dir: String) throws -> String? {
        let run = try runProgram(try BuildProducts.path("faultline"), ["exec", "--suppressions", path, "--", try BuildProducts.path("victim-heap"), "clean"],
                                 directory: dir)
        if run.status == 0 { return nil }
        #expect(run.status == 64, "\(run.stderr)")
        let own = run.stderr.split(separator: "\n").filter { $0.hasPrefix("faultline: ") }
        #expect(own.count == 1, "\(run.stderr)")
        return own.first.map(String.init)
    }

    /// The shim's lines about the file's lines, in a victim it runs in.
    private func shimLines(_ path: String, in dir: String) throws -> [String] {
        let run = try runProgram(try BuildProducts.path("victim-heap"), ["clean"], environment: [
            "LD_PRELOAD": try BuildProducts.path("libFaultlineMallocShim.so"), "FAULTLINE_SUPPRESSIONS": path,
            "FAULTLINE_REPORT_DIR": "\(dir)/reports",
        ], directory: dir)
        #expect(run.status == 0, "a bad line stopped the program: \(run.stderr)")
        return run.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("faultline: \(path):") }
    }

    @Test(arguments: badFiles)
    func bothNameTheSameLineAndReason(_ bad: BadFile) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try file(bad.bytes, in: dir)
        let exec = try execLine(path, in: dir)
        let shim = try shimLines(path, in: dir).first
        #expect(exec?.hasPrefix("faultline: \(path):\(bad.badLine): ") == true, "exec: \(exec ?? "ran the program")")
        #expect(shim?.hasPrefix("faultline: \(path):\(bad.badLine): ") == true, "shim: \(shim ?? "said nothing")")
        // The shim runs on past a bad line: it says so, and otherwise says
        // what exec says.
        #expect(shim?.contains("; the line is ignored; ") == true, "shim: \(shim ?? "said nothing")")
        #expect(shim?.replacingOccurrences(of: "; the line is ignored; ", with: "; ") == exec)
    }

    /// Every kind the readers list when they refuse a line is a kind both
    /// accept: one line of each, plus comments, blanks and CRLF.
    @Test func everyListedKindIsAcceptedByBoth() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let refused = try shimLines(try file(Data("nonsense\n".utf8), in: dir), in: dir).first ?? ""
        let listed = try #require(refused.range(of: "KIND one of ").flatMap { start in
            refused[start.upperBound...].range(of: ")").map { refused[start.upperBound..<$0.lowerBound] }
        }, "no list of kinds in \(refused)")
        let kinds = listed.components(separatedBy: ", ")
        #expect(kinds.count >= 6, "\(kinds)")
        let good = "# every kind\n\n" + kinds.map { "  \($0):victim_\($0)\t\r\n" }.joined()
        let path = try file(Data(good.utf8), in: dir)
        #expect(try execLine(path, in: dir) == nil, "exec refused a listed kind")
        #expect(try shimLines(path, in: dir) == [], "the shim refused a listed kind")
    }
}
