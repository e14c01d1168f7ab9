import Foundation
import Testing

/// `--junit` and `--json` are one option group in `faultline run` and
/// `faultline results merge`: checked alike before any work, written alike.
@Suite struct ResultsFileOptionsTests {
    /// An unwritable file is one line naming it and the option, exit 73,
    /// from either command, before a scenario runs or a shard is read.
    @Test(arguments: ["--junit", "--json"])
    func anUnwritableResultsFileEndsEitherCommandAlike(option: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let faultline = try BuildProducts.path("faultline")
        try FileManager.default.createDirectory(atPath: "\(dir)/Scenarios", withIntermediateDirectories: true)
        try "victim: victim-c\nargs: [exit]\nexpect: {exit: {code: 0}}\n".write(toFile: "\(dir)/Scenarios/a.yaml", atomically: true, encoding: .utf8)
        let target = "\(dir)/missing/results"
        let line = "faultline: cannot write \(target): No such file or directory; pass another \(option)\n"
        let run = try runProgram(faultline, ["run", "--scenarios", "\(dir)/Scenarios", "--artifacts", "\(dir)/artifacts", option, target])
        #expect(run.status == 73)
        #expect(run.stderr == line, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/artifacts"), "nothing ran")
        let merge = try runProgram(faultline, ["results", "merge", "\(dir)/no-such-shard.json", option, target])
        #expect(merge.status == 73)
        #expect(merge.stderr == line, "\(merge.stderr)")
    }
}
