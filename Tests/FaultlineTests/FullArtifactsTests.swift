import Faultline
import FaultlineHarness
import Foundation
import Testing

/// A run whose artifacts folder has no room left (the disk filled after
/// `faultline run` checked it): the verdict says so, instead of failing the
/// victim for the output and reports it could not leave.
@Suite struct FullArtifactsTests {
    @Test func fullArtifactsFolderIsTheFailure() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard let full = try FullFileSystem(in: dir) else { return }  // mounting needs root
        defer { full.unmount() }
        let build = BuildDirectory(path: (try BuildProducts.path("faultline") as NSString).deletingLastPathComponent)
        let scenario = try ScenarioLoader().parse(
            yaml: "name: t.full\nvictim: victim-c\nargs: [null-deref]\ninject: [crash]\nexpect:\n  exit: {signal: SIGSEGV}\n  reports: [{kind: crash}]\n  stderr_contains: [\"victim: dereferencing NULL\"]\n",
            file: "t.yaml")
        let options = RunOptions(buildDirectory: build, artifactsRoot: full.path + "/artifacts", jobs: 1)
        let run = try #require(SuiteRunner(options: options).run([scenario]).scenarios.first?.runs.first)
        #expect(run.verdict == .fail)
        #expect(run.failures.map(\.check) == ["artifacts"])
        #expect(run.failures.first?.found.hasPrefix("cannot write \(full.path)/artifacts/") == true)
        #expect(run.failures.first?.found.hasSuffix("/t.full/command: No space left on device; free space or pass another --artifacts (the victim was not run)") == true)
        #expect(run.pid == nil)
    }
}
