import Faultline
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// The suite at CI scale through the real CLI: three shards run as three
/// concurrent `faultline run` processes into three folders (split by
/// --shard, by gtest's variables and by Bazel's), merged by `faultline
/// results merge` into JUnit that a schema validator (xmllint, against
/// docs/junit.xsd) accepts.
@Suite struct ShardMergeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Nine quick scenarios (one fails) and a timings file with unequal times.
    func makeSuite(_ dir: String) throws -> (names: [String], timings: [String: Double]) {
        try FileManager.default.createDirectory(atPath: dir + "/suite", withIntermediateDirectories: true)
        var names: [String] = [], timings: [String: Double] = [:]
        for i in 1...9 {
            let name = "ci.s\(i)"
            let code = i == 5 ? 1 : 0
            try writeScript("name: \(name)\nvictim: /bin/sh\nargs: [\"-c\", \"exit \(code)\"]\nexpect: {exit: {code: 0}}\n",
                            to: "\(dir)/suite/\(name).yaml")
            names.append(name)
            timings[name] = Double([5, 1, 1, 5, 1, 1, 5, 1, 1][i - 1])
        }
        let doc = try JSONSerialization.data(withJSONObject: ["schema": "faultline.timings", "schema_version": 1, "durations": timings])
        try writeScript(String(decoding: doc, as: UTF8.self), to: dir + "/timings.json")
        return (names, timings)
    }

    /// The scenario names in a results file.
    func names(_ path: String) throws -> [String] {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        return try #require(root["scenarios"] as? [[String: Any]]).compactMap { $0["name"] as? String }
    }

    enum Split: CaseIterable { case option, gtest, bazel }

    @Test(arguments: Split.allCases)
    func threeConcurrentShardsMergeIntoValidJUnitListingEveryScenarioOnce(_ split: Split) throws {
        let faultline = try BuildProducts.path("faultline")
        let dir = try makeTemporaryDirectory("faultline-shards")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (suite, timings) = try makeSuite(dir)

        let runs = LockedRuns()
        DispatchQueue.concurrentPerform(iterations: 3) { i in
            var args = ["run", "--scenarios", dir + "/suite", "--artifacts", "\(dir)/shard\(i + 1)", "--json", "\(dir)/shard\(i + 1).json",
                        "--timings", dir + "/timings.json", "-j", "2"]
            var env: [String: String] = [:]
            switch split {
            case .option: args += ["--shard", "\(i + 1)/3"]
            case .gtest: env = ["GTEST_TOTAL_SHARDS": "3", "GTEST_SHARD_INDEX": "\(i)"]
            case .bazel: env = ["TEST_TOTAL_SHARDS": "3", "TEST_SHARD_INDEX": "\(i)", "TEST_SHARD_STATUS_FILE": "\(dir)/status\(i + 1)"]
            }
            runs.set(i, Result { try runProgram(faultline, args, environment: env) })
        }
        var shards: [[String]] = []
        for i in 0..<3 {
            let run = try runs.get(i).get()
            #expect(run.status == 0 || run.status == 1, "\(run.stderr)")
            shards.append(try names("\(dir)/shard\(i + 1).json"))
            if split == .bazel { #expect(FileManager.default.fileExists(atPath: "\(dir)/status\(i + 1)")) }
        }
        // Disjoint and complete; balanced by the recorded times.
        #expect(shards.flatMap { $0 }.sorted() == suite.sorted())
        #expect(Set(shards.flatMap { $0 }).count == suite.count)
        let totals = shards.map { $0.map { timings[$0]! }.reduce(0, +) }
        #expect(totals.max()! - totals.min()! <= timings.values.max()!, "shard totals \(totals)")
        // A sharded run leaves the timings file as it was.
        #expect(try String(contentsOfFile: dir + "/timings.json", encoding: .utf8).contains("\"ci.s1\":5"))

        let merge = try runProgram(faultline, ["results", "merge", "\(dir)/shard3.json", "\(dir)/shard1.json", "\(dir)/shard2.json",
                                               "--junit", dir + "/merged.xml", "--json", dir + "/merged.json"])
        #expect(merge.status == 1, "one scenario fails: \(merge.stderr)")
        #expect(merge.stdout.contains("9 scenarios: 8 passed, 1 failed, 0 skipped in"), "\(merge.stdout)")
        #expect(try names(dir + "/merged.json") == suite)

        let xmllint = "/usr/bin/xmllint"
        try #require(FileManager.default.isExecutableFile(atPath: xmllint), "xmllint is not installed; run scripts/setup (libxml2-utils)")
        let valid = try runProgram(xmllint, ["--noout", "--schema", Self.root + "/docs/junit.xsd", dir + "/merged.xml"])
        #expect(valid.status == 0, "\(valid.stderr)")
        let xml = try XMLDocument(contentsOf: URL(fileURLWithPath: dir + "/merged.xml"))
        let testcases = try xml.nodes(forXPath: "//testcase").compactMap { ($0 as? XMLElement)?.attribute(forName: "name")?.stringValue }
        #expect(testcases == suite)
        #expect(try xml.nodes(forXPath: "//testcase[failure]").compactMap { ($0 as? XMLElement)?.attribute(forName: "name")?.stringValue } == ["ci.s5"])

        // Without shard 2 the merge names what is missing.
        let missing = try runProgram(faultline, ["results", "merge", "\(dir)/shard1.json", "\(dir)/shard3.json"])
        #expect(missing.status == 2)
        let absent = shards[1].joined(separator: ", ")
        #expect(missing.stderr.hasPrefix("faultline: scenario\(shards[1].count == 1 ? "" : "s") \(absent) ") && missing.stderr.contains("(no file for shard 2/3)"),
                "\(missing.stderr)")
        // The same shard twice names the duplicated file.
        let twice = try runProgram(faultline, ["results", "merge", "\(dir)/shard1.json", "\(dir)/shard1.json", "\(dir)/shard2.json"])
        #expect(twice.status == 2)
        #expect(twice.stderr == "faultline: \(dir)/shard1.json and \(dir)/shard1.json are both shard 1/3; pass each shard's results once\n")
    }

    @Test func badShardValuesAreOneLine() throws {
        let faultline = try BuildProducts.path("faultline")
        let bad = try runProgram(faultline, ["run", "--shard", "4/3"])
        #expect(bad.status == 64)
        #expect(bad.stderr == "faultline: --shard 4/3: the shard index must be 1…3 (1-based), got 4 (see 'faultline run --help')\n")
        let env = try runProgram(faultline, ["run"], environment: ["GTEST_TOTAL_SHARDS": "two", "GTEST_SHARD_INDEX": "0"])
        #expect(env.status == 64)
        #expect(env.stderr == "faultline: GTEST_TOTAL_SHARDS='two' is not a number of shards; set it to e.g. 3 (see 'faultline run --help')\n")
    }

    /// `--last-failed` after a run with two failures runs those two, from
    /// the results the first run kept in its artifacts folder.
    @Test func lastFailedAfterTwoFailuresRunsThoseTwo() throws {
        let faultline = try BuildProducts.path("faultline")
        let dir = try makeTemporaryDirectory("faultline-last-failed")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/suite", withIntermediateDirectories: true)
        for (i, code) in [0, 1, 0, 1, 0].enumerated() {
            try writeScript("name: lf.s\(i)\nvictim: /bin/sh\nargs: [\"-c\", \"exit \(code)\"]\nexpect: {exit: {code: 0}}\n", to: "\(dir)/suite/lf.s\(i).yaml")
        }
        let common = ["run", "--scenarios", dir + "/suite", "--artifacts", dir + "/artifacts"]
        let first = try runProgram(faultline, common + ["--json", dir + "/first.json"])
        #expect(first.status == 1)
        #expect(try names(dir + "/first.json").count == 5)
        let again = try runProgram(faultline, common + ["--last-failed", "--json", dir + "/again.json"])
        #expect(again.status == 1)
        #expect(try names(dir + "/again.json") == ["lf.s1", "lf.s3"])
        let ordered = try runProgram(faultline, common + ["--failed-first", "-j", "1", "--json", dir + "/ordered.json"])
        #expect(ordered.status == 1)
        #expect(try names(dir + "/ordered.json") == ["lf.s1", "lf.s3", "lf.s0", "lf.s2", "lf.s4"])
        // The unsharded runs recorded every scenario's time.
        let timings = try String(contentsOfFile: dir + "/artifacts/timings.json", encoding: .utf8)
        #expect((0..<5).allSatisfy { timings.contains("\"lf.s\($0)\"") }, "\(timings)")
    }
}

/// Results of concurrently run programs, by index.
private final class LockedRuns: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Int: Result<Finished, Error>] = [:]

    func set(_ i: Int, _ r: Result<Finished, Error>) { lock.lock(); results[i] = r; lock.unlock() }
    func get(_ i: Int) -> Result<Finished, Error> { lock.lock(); defer { lock.unlock() }; return results[i]! }
}
