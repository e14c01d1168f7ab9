import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A folder of the suite that cannot be read is an error naming it: its
/// scenarios were left out without a word (and `faultline run` ran the
/// rest as if they were the whole suite).
@Suite struct UnreadableScenarioFolderTests {
    @Test func unreadableFolderIsNamed() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenarios = "\(dir)/Scenarios"
        try FileManager.default.createDirectory(atPath: "\(scenarios)/locked", withIntermediateDirectories: true)
        try "name: a\nvictim: victim-c\nargs: [exit]\nexpect: {exit: {code: 0}}\n".write(toFile: "\(scenarios)/a.yaml", atomically: true, encoding: .utf8)
        try "name: b\nvictim: victim-c\nargs: [exit]\nexpect: {exit: {code: 0}}\n".write(toFile: "\(scenarios)/locked/b.yaml", atomically: true, encoding: .utf8)
        for path in [dir, scenarios] { chmod(path, 0o755) }
        chmod("\(scenarios)/a.yaml", 0o644)
        chmod("\(scenarios)/locked", 0o700)
        // Root reads any folder: run faultline as nobody then.
        let faultline = try BuildProducts.path("faultline")
        let result = getuid() == 0
            ? try runProgram("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", faultline, "list", "--scenarios", scenarios])
            : try runProgram(faultline, ["list", "--scenarios", scenarios])
        #expect(result.stderr == "\(scenarios)/locked:1: cannot read this folder (Permission denied), so its scenarios are missing from the suite; check its permissions\n")
        #expect(result.status == 2)
    }
}
