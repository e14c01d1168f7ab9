import Faultline
import Foundation
import Testing
@testable import FaultlineHarness

/// A kept run's artifacts hold the program's output and reports: private
/// to the user like the reports themselves (they were 0644 and 0755).
@Suite struct ArtifactModeTests {
    private func mode(_ path: String) -> mode_t {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & 0o7777 : 0o7777
    }

    @Test func keptArtifactsAreOwnerOnly() throws {
        _ = try Products.require("victim-c")
        _ = try Products.require(BuildDirectory.agentLibrary)
        let dir = try TemporaryDirectory()
        // The usual umask: what made the files 0644 before.
        let old = umask(0o022)
        defer { umask(old) }
        let suite = try scenarios(["""
            name: t.crash
            victim: victim-c
            args: [null-deref]
            inject: [crash]
            expect:
              exit: {signal: SIGSEGV}
              reports: [{kind: crash}]
            """])
        let options = RunOptions(buildDirectory: Products.build, artifactsRoot: dir.path + "/artifacts", jobs: 1, keepArtifacts: true)
        let result = SuiteRunner(options: options).run(suite)
        let run = try #require(result.scenarios.first?.runs.first)
        #expect(run.verdict == .pass, "\(run.failures)")
        let folder = try #require(run.artifacts)
        #expect(mode(result.artifactsDirectory) == 0o700)
        #expect(mode(folder) == 0o700)
        #expect(mode(folder + "/reports") == 0o700)
        for file in ["stdout", "stderr", "command", "result.json"] {
            #expect(mode(folder + "/" + file) == 0o600, "\(file): \(String(mode(folder + "/" + file), radix: 8))")
        }
        let reports = try FileManager.default.contentsOfDirectory(atPath: folder + "/reports")
        #expect(reports.count == 1)
        for r in reports { #expect(mode(folder + "/reports/" + r) == 0o600) }
    }
}
