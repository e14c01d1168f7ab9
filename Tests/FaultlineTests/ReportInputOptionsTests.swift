import Foundation
import Testing

/// `report export` and `report upload` gather their inputs with the same
/// lines (`ReportInputOptions`): the same help, the same one-line errors;
/// `report show` and `report groups` share the options that fit them.
@Suite struct ReportInputOptionsTests {
    private func faultline(_ args: [String]) throws -> Finished {
        try runProgram(try BuildProducts.path("faultline"), args)
    }

    /// The help entry of `option` in `report COMMAND --help`: its line and
    /// the indented lines that continue it.
    private func helpEntry(_ command: String, _ option: String) throws -> [String] {
        let lines = try faultline(["report", command, "--help"]).stdout.split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("  \(option) ") || $0 == "  \(option)" }) else { return [] }
        var out = [lines[start]]
        for line in lines[(start + 1)...] {
            guard line.hasPrefix("                 ") else { break }
            out.append(line)
        }
        return out
    }

    @Test func theSharedOptionsReadTheSameEverywhere() throws {
        let noSymbolicate = try helpEntry("export", "--no-symbolicate")
        #expect(noSymbolicate.joined().contains("signed by image and offset"), "\(noSymbolicate)")
        for command in ["show", "groups", "upload"] {
            #expect(try helpEntry(command, "--no-symbolicate") == noSymbolicate, "report \(command)")
        }
        let rules = try helpEntry("export", "--signature-rules <file>")
        #expect(!rules.isEmpty)
        for command in ["show", "upload"] { #expect(try helpEntry(command, "--signature-rules <file>") == rules, "report \(command)") }
        #expect(try helpEntry("upload", "<inputs>") == (try helpEntry("export", "<inputs>")))
        #expect(!(try helpEntry("export", "<inputs>")).isEmpty)
    }

    @Test func exportAndUploadRefuseTheSameInputsWithTheSameLine() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let commands = [["export", "--format", "sentry", "-o", "\(dir)/out"], ["upload", "--dsn", "http://k@127.0.0.1:9/1"]]
        var answers: [[String]] = []
        for c in commands {
            let missing = try faultline(["report"] + c + ["\(dir)/nothing-here"])
            let rules = try faultline(["report"] + c + ["--signature-rules", "\(dir)/no-rules", dir])
            try "hide this\n".write(toFile: "\(dir)/bad.rules", atomically: true, encoding: .utf8)
            let bad = try faultline(["report"] + c + ["--signature-rules", "\(dir)/bad.rules", dir])
            for run in [missing, rules, bad] { #expect(run.stderr.split(separator: "\n").count == 1, "\(c[0]): \(run.stderr)") }
            #expect(missing.stderr.contains("\(dir)/nothing-here: no such file or directory; give report files or folders"), "\(missing.stderr)")
            #expect(rules.status == 64 && rules.stderr.contains("\(dir)/no-rules"), "\(rules.stderr)")
            #expect(bad.status == 64 && bad.stderr.contains("bad.rules:1: not a signature rule"), "\(bad.stderr)")
            answers.append([missing, rules, bad].map { "\($0.status) \($0.stderr)" })
        }
        #expect(answers[0] == answers[1])
    }
}
