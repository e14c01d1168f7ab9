import Faultline
import Foundation
import Testing

/// Error lines stay one line when the paths or values they quote hold
/// newlines or other control characters (legal in Linux file names).
@Suite struct OneLineTests {
    @Test func controlCharactersAreEscaped() {
        #expect(OneLine.escaped("plain ünïcode/with spaces") == "plain ünïcode/with spaces")
        #expect(OneLine.escaped("a\nb\tc\r\0d\u{1B}[0m\u{7F}") == "a\\nb\\tc\\r\\0d\\u{1B}[0m\\u{7F}")
        #expect(OneLine.escaped("a\tb\u{9B}c\n", keepingTabs: true) == "a\tb\\u{9B}c\\n")
    }

    /// DEL and C1 controls in JSON strings become `\u00XX`; other
    /// non-ASCII text (a no-break space, which also starts with 0xC2) stays.
    @Test func terminalSafeJSONEscapesC1ControlsOnly() throws {
        let value = ["s": "a\u{7F}b\u{9B}2J\u{80}c\u{A0}d é"]
        let raw = try JSONEncoder().encode(value)
        let safe = TerminalSafeJSON.escapingControls(raw)
        #expect(String(decoding: safe, as: UTF8.self) == #"{"s":"a\u007fb\u009b2J\u0080c\#u{A0}d é"}"#)
        #expect(try JSONDecoder().decode([String: String].self, from: safe) == value)
        let plain = Data(#"{"s":"ünïcode"}"#.utf8)
        #expect(TerminalSafeJSON.escapingControls(plain) == plain)
    }

    @Test func reportErrorsNameAPathWithANewlineOnOneLine() {
        let error = ReportLoadError(path: "/tmp/new\nline/crash.json", reason: .empty)
        #expect(error.description == "/tmp/new\\nline/crash.json: empty file, not a report; delete it")
    }

    /// `faultline exec` of a program whose path has a newline: one line.
    @Test func execOfAPathWithANewlineIsOneLine() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try runProgram(try BuildProducts.path("faultline"), ["exec", "--report-dir", dir, "--", "\(dir)/no\nsuch"])
        #expect(result.status == 127)
        #expect(result.stderr == "faultline: \(dir)/no\\nsuch: no such file; check the path\n")
    }

    /// The summary lines of `exec` and `report` quote the report directory:
    /// one with a newline and an escape sequence in its name split them and
    /// reached the terminal raw.
    @Test func summaryLinesNameAnOddDirectoryOnOneLine() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let odd = "\(dir)/new\nline\u{1B}[31m", shown = "\(dir)/new\\nline\\u{1B}[31m"
        let faultline = try BuildProducts.path("faultline")
        let exec = try runProgram(faultline, ["exec", "--report-dir", odd, "--", try BuildProducts.path("victim-c"), "abort"])
        #expect(exec.status == 128 + 6)
        let lines = exec.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("faultline: report 1 of 1: \(shown)/crash-") && $0.hasSuffix(".json") }, "\(exec.stderr)")
        #expect(lines.last == "faultline: 1 report(s) in \(shown)")
        #expect(!exec.stderr.contains("\u{1B}"))

        let list = try runProgram(faultline, ["report", "list", odd])
        #expect(list.status == 0)
        #expect(list.stdout.split(separator: "\n").last.map(String.init) == "1 report(s) in \(shown)", "\(list.stdout)")
        let missing = try runProgram(faultline, ["report", "list", odd + "/nope"])
        #expect(missing.stderr == "faultline: cannot read report directory \(shown)/nope: no such directory; run `faultline exec -- CMD` first or pass DIR\n")
        let show = try runProgram(faultline, ["report", "show", odd])
        #expect(show.stderr == "faultline: \(shown) is a directory; use `faultline report list \(shown)`, or give a report file or id\n")
    }

    /// Through the CLI: a results path and a scenario folder with a newline.
    @Test func cliErrorsNameAPathWithANewlineOnOneLine() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let odd = "\(dir)/new\nline"
        try FileManager.default.createDirectory(atPath: "\(odd)/Scenarios", withIntermediateDirectories: true)
        try "name: a\nvictim: v\nbogus: 1\nexpect: {no_reports: true}\n".write(toFile: "\(odd)/Scenarios/a.yaml", atomically: true, encoding: .utf8)
        let faultline = try BuildProducts.path("faultline")
        let list = try runProgram(faultline, ["list", "--scenarios", "\(odd)/Scenarios"])
        #expect(list.status == 2)
        #expect(list.stderr.hasPrefix("\(dir)/new\\nline/Scenarios/a.yaml:3: unknown key 'bogus' in the scenario;"))
        #expect(list.stderr.filter { $0 == "\n" }.count == 1, "\(list.stderr)")
        let run = try runProgram(faultline, ["run", "--scenarios", "\(odd)/Scenarios", "--json", "\(odd)/missing/results.json"])
        #expect(run.stderr.components(separatedBy: "\n").first == "\(dir)/new\\nline/Scenarios/a.yaml:3: unknown key 'bogus' in the scenario; known keys: name, description, victim, args, inject, mode, env, timeout, memory_limit, requires, expect, xfail, variants")
        try FileManager.default.removeItem(atPath: "\(odd)/Scenarios/a.yaml")
        try "name: a\nvictim: victim-c\nargs: [exit]\nexpect: {exit: {code: 0}}\n".write(toFile: "\(odd)/Scenarios/a.yaml", atomically: true, encoding: .utf8)
        let json = try runProgram(faultline, ["run", "--scenarios", "\(odd)/Scenarios", "--build-dir", (faultline as NSString).deletingLastPathComponent,
                                              "--json", "\(odd)/missing/results.json"], directory: dir)
        #expect(json.status == 73)
        #expect(json.stderr == "faultline: cannot write \(dir)/new\\nline/missing/results.json: No such file or directory; pass another --json\n")
    }
}
