import Faultline
import Foundation
import Testing

/// `faultline run` with an output it cannot write: one line naming the path
/// and the cause, exit 73, and nothing run (no artifacts folder appears).
@Suite struct RunOutputTests {
    private func run(_ options: [String], in dir: String) throws -> Finished {
        let faultline = try BuildProducts.path("faultline")
        let build = (faultline as NSString).deletingLastPathComponent
        let scenarios = "\(dir)/Scenarios"
        try FileManager.default.createDirectory(atPath: scenarios, withIntermediateDirectories: true)
        try "name: exits\nvictim: victim-c\nargs: [exit]\nexpect:\n  exit: {code: 0}\n"
            .write(toFile: "\(scenarios)/exits.yaml", atomically: true, encoding: .utf8)
        return try runProgram(faultline, ["run", "--scenarios", scenarios, "--build-dir", build] + options, directory: dir)
    }

    @Test(arguments: [
        (["--junit", "missing/results.xml"], "faultline: cannot write missing/results.xml: No such file or directory; pass another --junit"),
        (["--json", "."], "faultline: cannot write .: it is a folder; pass another --json"),
        (["--artifacts", "a-file/artifacts"], "faultline: cannot create a-file/artifacts: Not a directory; pass another --artifacts"),
    ])
    func unwritableOutputIsOneLineBeforeAnythingRuns(options: [String], message: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data().write(to: URL(fileURLWithPath: "\(dir)/a-file"))
        let result = try run(options, in: dir)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr == message + "\n")
        #expect(result.stdout.isEmpty, "the suite ran: \(result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/.faultline-artifacts"))
    }

    /// The results file is written whole, next to a run that passed.
    @Test func writableOutputsAreWritten() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try run(["--json", "results.json", "--junit", "results.xml"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/results.json")))
        #expect((json as? [String: Any])?["scenarios"] != nil)
        #expect(try String(contentsOfFile: "\(dir)/results.xml", encoding: .utf8).contains("<testsuite"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).allSatisfy { !$0.hasPrefix(".faultline-probe") })
    }
}
