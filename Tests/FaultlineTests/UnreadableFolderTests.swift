import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Folders that cannot be read are named, not skipped without a word.
@Suite struct UnreadableFolderTests {
    /// Runs faultline as nobody when we are root (root reads any folder).
    private func faultline(_ arguments: [String]) throws -> Finished {
        let faultline = try BuildProducts.path("faultline")
        return getuid() == 0
            ? try runProgram("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", faultline] + arguments)
            : try runProgram(faultline, arguments)
    }

    /// A folder of the suite: its scenarios were left out (and `faultline
    /// run` ran the rest as if they were the whole suite).
    @Test func unreadableFolderIsNamed() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenarios = "\(dir)/Scenarios"
        try FileManager.default.createDirectory(atPath: "\(scenarios)/locked", withIntermediateDirectories: true)
        try "name: a\nvictim: victim-c\nargs: [exit]\nexpect: {exit: {code: 0}}\n".write(toFile: "\(scenarios)/a.yaml", atomically: true, encoding: .utf8)
        try "name: b\nvictim: victim-c\nargs: [exit]\nexpect: {exit: {code: 0}}\n".write(toFile: "\(scenarios)/locked/b.yaml", atomically: true, encoding: .utf8)
        for path in [dir, scenarios] { chmod(path, 0o755) }
        chmod("\(scenarios)/a.yaml", 0o644)
        chmod("\(scenarios)/locked", 0)
        defer { chmod("\(scenarios)/locked", 0o755) }
        let result = try faultline(["list", "--scenarios", scenarios])
        #expect(result.stderr == "\(scenarios)/locked:1: cannot read this folder (Permission denied), so its scenarios are missing from the suite; check its permissions\n")
        #expect(result.status == 2)
    }

    /// A run directory `report list` cannot open: its reports were missing
    /// from the table without a word.
    @Test func unreadableRunDirectoryIsNamed() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = "\(dir)/run", locked = "\(dir)/locked"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        let report = try Victims.crashC("null-deref", in: run).path
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: report, toPath: "\(locked)/crash-copy.json")
        for path in [dir, run] { chmod(path, 0o755) }
        chmod(report, 0o644)
        chmod(locked, 0)
        defer { chmod(locked, 0o755) }
        let result = try faultline(["report", "list", dir])
        #expect(result.stderr == "faultline: skipped \(locked): cannot read: Permission denied; check its permissions; the reports in it are not listed\n")
        #expect(result.stdout.contains("1 report(s) in \(dir), 1 unreadable file(s) skipped"))
    }
}
