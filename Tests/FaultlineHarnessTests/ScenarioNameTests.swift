import Faultline
import Foundation
import Testing
@testable import FaultlineHarness

/// A scenario's name names its artifacts folder: `.` and `..` made the
/// runner write into (and, on a pass, delete) the artifacts root.
@Suite struct ScenarioNameTests {
    private func loadError(_ yaml: String) -> String? {
        do {
            _ = try ScenarioLoader().parse(yaml: yaml, file: "s.yaml")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func dotAndDotDotAndOtherFolderNamesAreRefused() {
        for bad in ["..", ".", "a..b", ".hidden", "trailing.", "a/b", "a b", "é", String(repeating: "x", count: 129)] {
            let e = loadError("name: '\(bad)'\nvictim: v\nexpect: {no_reports: true}\n")
            #expect(e?.hasPrefix("s.yaml:1: name '") == true, "\(bad): \(e ?? "accepted")")
        }
        #expect(loadError("name: '..'\nvictim: v\nexpect: {no_reports: true}\n")
            == "s.yaml:1: name '..' may not start or end with '.' nor hold '..' (it names a folder inside the run's); rename it")
        for good in ["crash.null-deref", "a_b-c.9", String(repeating: "x", count: 128)] {
            #expect(loadError("name: \(good)\nvictim: v\nexpect: {no_reports: true}\n") == nil, "\(good)")
        }
    }

    @Test func theNameDefaultsToThePathAndMustMatchIt() throws {
        #expect(ScenarioLoader.name(forRelativePath: "crash/null-deref.yaml") == "crash.null-deref")
        #expect(ScenarioLoader.name(forRelativePath: "cxx/linked/future.yml") == "cxx.linked.future")
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/crash", withIntermediateDirectories: true)
        try writeScript("victim: v\nexpect: {no_reports: true}\n", to: dir.path + "/crash/unnamed.yaml")
        try writeScript("name: crash.same\nvictim: v\nexpect: {no_reports: true}\n", to: dir.path + "/crash/same.yaml")
        try writeScript("# x\nname: crash.other\nvictim: v\nexpect: {no_reports: true}\n", to: dir.path + "/crash/differs.yaml")
        let suite = ScenarioSuite.load(directory: dir.path)
        #expect(suite.scenarios.map(\.name) == ["crash.same", "crash.unnamed"])
        #expect(suite.errors.map(\.description) == [
            "\(dir.path)/crash/differs.yaml:2: name 'crash.other' differs from 'crash.differs', the name the file's path gives it; drop the name line or rename one of them",
        ])
    }

    @Test func aPathThatGivesNoValidNameIsAnError() throws {
        let dir = try TemporaryDirectory()
        try writeScript("victim: v\nexpect: {no_reports: true}\n", to: dir.path + "/a b.yaml")
        let suite = ScenarioSuite.load(directory: dir.path)
        #expect(suite.scenarios.isEmpty)
        #expect(suite.errors.first?.description.hasPrefix("\(dir.path)/a b.yaml:1: the name 'a b' its path gives it may only use") == true,
                "\(suite.errors)")
    }

    /// A scenario named `..` (made in code: the loader refuses it) would
    /// have the artifacts root as its folder. The runner makes each run's
    /// folder itself and refuses one that exists, so it neither writes
    /// there nor deletes anything it did not make.
    @Test func theRunnerDeletesOnlyFoldersItMade() throws {
        let dir = try TemporaryDirectory()
        let root = dir.path + "/artifacts"
        #expect(mkdir(root, 0o755) == 0)
        try writeScript("unrelated\n", to: root + "/keep-me")
        let scenario = Scenario(name: "..", source: SourceLocation(file: "x.yaml", line: 1), victim: "/bin/true")
        var s = scenario
        s.expect.exit = .code(0)
        let result = SuiteRunner(options: RunOptions(buildDirectory: Products.build, artifactsRoot: root, jobs: 1)).run([s])
        let run = try #require(result.scenarios.first?.runs.first)
        #expect(run.verdict == .fail)
        #expect(run.failures.map(\.found).joined().contains("it exists already"), "\(run.failures)")
        #expect(FileManager.default.fileExists(atPath: root + "/keep-me"))
        #expect(!FileManager.default.fileExists(atPath: root + "/command"))
    }
}
