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
        // Empty paths: --junit "" failed after the whole suite with Foundation's
        // error text, --artifacts "" wrote into the current folder.
        (["--junit", ""], "faultline: an empty path names no file or folder; pass another --junit"),
        (["--artifacts", ""], "faultline: an empty path names no file or folder; pass another --artifacts"),
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

    /// Outputs on a full file system: refused before anything runs, like any
    /// other unwritable path (an empty probe file fit, so the scenarios ran
    /// and failed for want of space, and --json failed after the suite with
    /// Foundation's error text). The folders the check made are removed.
    @Test func fullFileSystemIsOneLineBeforeAnythingRuns() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard let full = try FullFileSystem(in: dir) else { return }  // mounting needs root
        defer { full.unmount() }
        for (options, message) in [
            (["--json", "full/results.json"], "faultline: cannot write full/results.json: No space left on device; pass another --json"),
            (["--artifacts", "full/a/b"], "faultline: cannot write into full/a/b: No space left on device; pass another --artifacts"),
        ] {
            let result = try run(options, in: dir)
            #expect(result.status == 73, "\(result.stderr)")
            #expect(result.stderr == message + "\n")
            #expect(result.stdout.isEmpty, "the suite ran: \(result.stdout)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: "\(dir)/full") == ["filler"])
        }
        #expect(OutputLocation.write(Data("x".utf8), to: "\(dir)/full/x.json") == "cannot write \(dir)/full/x.json: No space left on device")
    }
}
