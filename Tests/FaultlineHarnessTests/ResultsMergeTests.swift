import Foundation
import Testing
@testable import FaultlineHarness

/// Merging shard results: one document as one run would have written, and
/// every way shards can fail to add up is an error naming what is wrong.
@Suite struct ResultsMergeTests {
    func shard(_ index: Int, of total: Int, _ names: [String], suite: [String], verdict: Verdict = .pass) throws -> ResultsDocument {
        let s = try scenarios(names.map { "name: \($0)\nvictim: /bin/true\nexpect: {exit: {code: 0}}\n" })
        let runs = names.map { n in
            RunRecord(scenario: n, repeatIndex: nil, verdict: verdict, durationSeconds: 0.5, exit: "exit code 0", failures: [],
                      skipReason: nil, artifacts: nil, command: ["/bin/true"], pid: 1, reports: [], memoryLimit: nil)
        }
        var result = SuiteResult(scenarios: zip(s, runs).map { ScenarioResult(scenario: $0, runs: [$1]) }, wallSeconds: Double(index),
                                 startedAt: "2026-01-01T00:00:0\(index)Z", artifactsDirectory: "/a/\(index)")
        result.suite = suite
        result.shard = Shard(index: index, total: total)
        // Through JSON, as the command reads them.
        return try ResultsDocument.decode(try ResultsDocument(result).encoded(), file: "s\(index).json")
    }

    let suite = ["a", "b", "c", "d", "e"]

    @Test func shardsMergeInSuiteOrder() throws {
        let merged = try ResultsMerge.merge([
            ("s2.json", try shard(2, of: 2, ["b", "d"], suite: suite)),
            ("s1.json", try shard(1, of: 2, ["a", "c", "e"], suite: suite)),
        ])
        #expect(merged.scenarios.map(\.name) == suite)
        #expect(merged.shard == nil)
        #expect(merged.totals["scenarios"] == 5 && merged.totals["pass"] == 5)
        #expect(merged.startedAt == "2026-01-01T00:00:01Z")
        // From the first start (0:01) to the last end (0:02 + 2 s).
        #expect(abs(merged.wallSeconds - 3) < 0.001)
        #expect(merged.mergedFrom?.map(\.file) == ["s2.json", "s1.json"])
    }

    func mergeError(_ docs: [(file: String, doc: ResultsDocument)]) -> String? {
        do {
            _ = try ResultsMerge.merge(docs)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func aMissingShardNamesItsScenarios() throws {
        let message = mergeError([("s1.json", try shard(1, of: 3, ["a", "d"], suite: suite)),
                                  ("s3.json", try shard(3, of: 3, ["c"], suite: suite))])
        #expect(message == "scenarios b, e are in no results file (no file for shard 2/3); pass the --json files of every shard")
    }

    @Test func aScenarioInTwoShardsIsNamed() throws {
        let message = mergeError([("s1.json", try shard(1, of: 2, ["a", "b", "c"], suite: suite)),
                                  ("s2.json", try shard(2, of: 2, ["c", "d", "e"], suite: suite))])
        #expect(message == "scenario c is in both s1.json and s2.json; the shards overlap (were they split with different --timings files?)")
    }

    @Test func theSameShardTwiceDifferentSplitsAndSuitesAreErrors() throws {
        #expect(mergeError([("x.json", try shard(1, of: 2, ["a"], suite: suite)), ("y.json", try shard(1, of: 2, [], suite: suite))])
            == "x.json and y.json are both shard 1/2; pass each shard's results once")
        #expect(mergeError([("x.json", try shard(1, of: 2, ["a"], suite: suite)), ("y.json", try shard(2, of: 3, [], suite: suite))])
            == "y.json is shard 2/3 but x.json is shard 1/2; merge the shards of one split")
        #expect(mergeError([("x.json", try shard(1, of: 2, ["a"], suite: suite)), ("y.json", try shard(2, of: 2, [], suite: ["a", "z"]))])?
            .hasPrefix("y.json and x.json are results of different suites (b, c, d, e, z in only one)") == true)
    }

    @Test func filesThatAreNotResultsAreNamed() throws {
        #expect(throws: ResultsFileError.self) { try ResultsDocument.decode(Data("[]".utf8), file: "x.json") }
        do { _ = try ResultsDocument.decode(Data("{\"schema\": \"faultline.run-results\", \"schema_version\": 1}".utf8), file: "old.json") } catch {
            #expect(error.description == "old.json: results schema version 1, this faultline merges version 2; rerun the shards with this faultline")
        }
        do { _ = try ResultsDocument.decode(Data("{\"schema\": \"faultline.run-results\", \"schema_version\": 2}".utf8), file: "cut.json") } catch {
            #expect(error.description.hasPrefix("cut.json: malformed results (no "))
        }
    }
}
