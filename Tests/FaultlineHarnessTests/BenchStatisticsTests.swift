import Foundation
import Testing
@testable import FaultlineHarness

@Suite struct BenchStatisticsTests {
    @Test func percentilesInterpolateBetweenRanks() throws {
        // 1...10: position q*(n-1); p10 at 0.9 -> 1.9, median at 4.5 -> 5.5, p90 at 8.1 -> 9.1.
        let s = try #require(BenchSummary(samples: (1...10).map(Double.init).shuffled()))
        #expect(s.count == 10)
        #expect(abs(s.median - 5.5) < 1e-9)
        #expect(abs(s.p10 - 1.9) < 1e-9)
        #expect(abs(s.p90 - 9.1) < 1e-9)
    }

    @Test func oddCountMedianIsTheMiddleSample() throws {
        let s = try #require(BenchSummary(samples: [9, 1, 5]))
        #expect(s.median == 5)
        #expect(s.p10 < s.median && s.median < s.p90)
    }

    @Test func oneSampleIsItsOwnSpreadAndNoSamplesNoSummary() throws {
        let s = try #require(BenchSummary(samples: [4.25]))
        #expect(s.median == 4.25 && s.p10 == 4.25 && s.p90 == 4.25)
        #expect(BenchSummary(samples: []) == nil)
    }

    @Test func ratiosAreAgainstTheBaselineMedian() throws {
        var m = BenchMetric(group: "g", name: "g.x", title: "x", unit: "s", baseline: "base", entries: [
            BenchEntry(config: "base", label: "base", samples: [2, 2, 2]),
            BenchEntry(config: "slow", label: "slow", samples: [5, 6, 7]),
            BenchEntry(config: "gone", label: "gone", status: .failed, note: "exit status 1"),
        ])
        m.computeRatios()
        #expect(m.entries[0].ratio?.median == 1)
        let slow = try #require(m.entries[1].ratio)
        #expect(abs(slow.median - 3) < 1e-9)
        #expect(slow.p10 < slow.median && slow.median < slow.p90)
        #expect(m.entries[2].ratio == nil && m.entries[2].summary == nil)
    }

    @Test func noRatioWithoutABaselineOrWithAZeroBaseline() throws {
        var none = BenchMetric(group: "g", name: "g.x", title: "x", unit: "s", entries: [BenchEntry(config: "a", label: "a", samples: [1])])
        none.computeRatios()
        #expect(none.entries[0].ratio == nil)
        var zero = BenchMetric(group: "g", name: "g.y", title: "y", unit: "s", baseline: "z", entries: [
            BenchEntry(config: "z", label: "z", samples: [0, 0]), BenchEntry(config: "a", label: "a", samples: [1]),
        ])
        zero.computeRatios()
        #expect(zero.entries[1].ratio == nil)
    }

    @Test func scheduleAlternatesAndReversesEveryRound() {
        let s = BenchSchedule(configs: 3, rounds: 2, warmup: 1)
        #expect(s.slots.map(\.config) == [0, 1, 2, 2, 1, 0, 0, 1, 2])
        #expect(s.slots.map(\.warmup) == [true, true, true, false, false, false, false, false, false])
        for c in 0..<3 { #expect(s.slots.filter { $0.config == c && !$0.warmup }.count == 2) }
        #expect(BenchSchedule(configs: 2, rounds: 0, warmup: 0).slots.isEmpty)
    }

    @Test func sampleLinesAcceptValueOrSamplesAndRejectBrokenObjects() throws {
        let text = """
            bench: a human line is ignored
            {"metric":"a.b","config":"x","unit":"us","value":1.5}
            {"metric":"a.b","config":"y","unit":"us","samples":[1,2,3],"note":"n"}
            """
        let lines = try BenchSampleLine.parse(text, program: "p")
        #expect(lines.count == 2)
        #expect(lines[0].allValues == [1.5])
        #expect(lines[1].allValues == [1, 2, 3] && lines[1].note == "n")
        #expect(throws: BenchError.self) { try BenchSampleLine.parse("{\"metric\":\"a\",\"config\":\"x\",\"unit\":\"us\"}", program: "p") }
        do {
            _ = try BenchSampleLine.parse("ok\n{\"metric\":1}", program: "bench-x")
            Issue.record("a broken line was accepted")
        } catch {
            #expect("\(error)".contains("bench-x: output line 2"))
        }
    }
}
