import Foundation
import Testing
@testable import FaultlineHarness

/// Shard options and variables, and how the planner splits a suite.
@Suite struct ShardTests {
    @Test func optionIsOneBasedAndBadValuesAreNamed() throws {
        #expect(try Shard.parse("2/3").get() == Shard(index: 2, total: 3))
        for (text, message) in [
            ("2", "--shard '2' is not INDEX/TOTAL; write e.g. --shard 2/3 (1-based)"),
            ("a/3", "--shard 'a/3' is not INDEX/TOTAL; write e.g. --shard 2/3 (1-based)"),
            ("0/3", "--shard 0/3: the shard index must be 1…3 (1-based), got 0"),
            ("4/3", "--shard 4/3: the shard index must be 1…3 (1-based), got 4"),
            ("1/0", "--shard 1/0: the number of shards must be 1…10000, got 0"),
        ] {
            guard case .failure(let e) = Shard.parse(text) else { Issue.record("\(text) parsed"); continue }
            #expect(e.description == message)
        }
    }

    @Test func gtestAndBazelVariablesAreZeroBased() throws {
        #expect(Shard.fromEnvironment([:]) == nil)
        #expect(try Shard.fromEnvironment(["GTEST_TOTAL_SHARDS": "3", "GTEST_SHARD_INDEX": "0"])?.get() == Shard(index: 1, total: 3))
        #expect(try Shard.fromEnvironment(["TEST_TOTAL_SHARDS": "3", "TEST_SHARD_INDEX": "2"])?.get() == Shard(index: 3, total: 3))
        // Bazel's test-setup exports both pairs; agreeing is fine.
        #expect(try Shard.fromEnvironment(["TEST_TOTAL_SHARDS": "2", "TEST_SHARD_INDEX": "1",
                                           "GTEST_TOTAL_SHARDS": "2", "GTEST_SHARD_INDEX": "1"])?.get() == Shard(index: 2, total: 2))
        for (env, message) in [
            (["GTEST_TOTAL_SHARDS": "3", "GTEST_SHARD_INDEX": "3"], "GTEST_SHARD_INDEX=3 of GTEST_TOTAL_SHARDS=3: the shard index must be 0…2 (0-based), got 3"),
            (["TEST_TOTAL_SHARDS": "3"], "TEST_TOTAL_SHARDS is set but TEST_SHARD_INDEX is not; set both (0-based index) or neither"),
            (["TEST_TOTAL_SHARDS": "x", "TEST_SHARD_INDEX": "0"], "TEST_TOTAL_SHARDS='x' is not a number of shards; set it to e.g. 3"),
            (["GTEST_TOTAL_SHARDS": "3", "GTEST_SHARD_INDEX": "-1"], "GTEST_SHARD_INDEX=-1 of GTEST_TOTAL_SHARDS=3: the shard index must be 0…2 (0-based), got -1"),
            (["TEST_TOTAL_SHARDS": "2", "TEST_SHARD_INDEX": "0", "GTEST_TOTAL_SHARDS": "2", "GTEST_SHARD_INDEX": "1"],
             "TEST_SHARD_INDEX/TEST_TOTAL_SHARDS say shard 1/2 but GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS say 2/2; unset one pair"),
        ] {
            guard case .failure(let e)? = Shard.fromEnvironment(env) else { Issue.record("\(env) accepted"); continue }
            #expect(e.description == message)
        }
    }

    /// Every split of random suites is disjoint, complete and in suite
    /// order, the same when planned again, and balanced: the shards' totals
    /// differ by at most the longest scenario.
    @Test func splitsAreDisjointCompleteDeterministicAndBalanced() {
        var generator = SplitMix64(state: 38)
        for round in 0..<200 {
            let count = Int(generator.next() % 40)
            let names = (0..<count).map { "s\($0).\(generator.next() % 1000)" }
            let unique = Array(NSOrderedSet(array: names).array as! [String])
            var timings = ScenarioTimings()
            // Some scenarios without a recorded time (they count as the mean).
            for n in unique where generator.next() % 5 != 0 { timings.durations[n] = Double(generator.next() % 10_000) / 100 }
            let shards = 1 + Int(generator.next() % 6)
            let plan = ShardPlanner.plan(unique, timings: timings, shards: shards)
            #expect(plan.count == shards)
            #expect(plan.flatMap { $0 }.sorted() == unique.sorted(), "round \(round): not disjoint and complete")
            for part in plan { #expect(part == unique.filter(part.contains), "round \(round): not in suite order") }
            #expect(ShardPlanner.plan(unique, timings: timings, shards: shards) == plan)
            let known = unique.compactMap { timings.durations[$0] }
            let mean = known.isEmpty ? 1 : known.reduce(0, +) / Double(known.count)
            let cost = { (n: String) in timings.durations[n] ?? mean }
            let totals = plan.map { $0.map(cost).reduce(0, +) }
            let longest = unique.map(cost).max() ?? 0
            #expect((totals.max() ?? 0) - (totals.min() ?? 0) <= longest + 1e-9, "round \(round): \(totals) longest \(longest)")
        }
    }

    @Test func withoutTimingsTheSplitIsRoundRobinInNameOrder() {
        let names = ["a", "b", "c", "d", "e", "f", "g"]
        #expect(ShardPlanner.plan(names, timings: ScenarioTimings(), shards: 3) == [["a", "d", "g"], ["b", "e"], ["c", "f"]])
    }

    @Test func recordedTimesMoveTheLongScenarioAlone() {
        let t = ScenarioTimings(durations: ["a": 10, "b": 1, "c": 1, "d": 1, "e": 1])
        #expect(ShardPlanner.plan(["a", "b", "c", "d", "e"], timings: t, shards: 2) == [["a"], ["b", "c", "d", "e"]])
    }

    @Test func shuffleIsAPermutationFixedByTheSeed() throws {
        let s = try scenarios((0..<20).map { "name: t.s\($0)\nvictim: /bin/true\nexpect: {exit: {code: 0}}\n" })
        let a = RunOrder.shuffled(s, seed: 7).map(\.name), b = RunOrder.shuffled(s, seed: 7).map(\.name)
        #expect(a == b)
        #expect(a.sorted() == s.map(\.name).sorted())
        #expect(a != s.map(\.name))
        #expect(RunOrder.shuffled(s, seed: 8).map(\.name) != a)
    }

    @Test func timingsFileRoundTripsAndBadFilesAreNamed() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/timings.json"
        #expect(try ScenarioTimings.load(path) == ScenarioTimings())
        #expect(ScenarioTimings.update(path, with: ScenarioTimings(durations: ["a": 1.5, "b": 2])) == nil)
        #expect(ScenarioTimings.update(path, with: ScenarioTimings(durations: ["b": 3])) == nil)
        #expect(try ScenarioTimings.load(path).durations == ["a": 1.5, "b": 3])
        try writeScript("{\"durations\": []}", to: path)
        #expect(throws: TimingsError.self) { try ScenarioTimings.load(path) }
        do { _ = try ScenarioTimings.load(path) } catch {
            #expect(error.description.hasPrefix("\(path): not a faultline timings file"))
        }
    }
}
