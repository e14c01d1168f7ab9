import Faultline
import Foundation
import Testing

/// A deterministic generator (splitmix64): a failing mutation is the same
/// on every run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

/// Mutations of a text file: byte flips, truncations, and each number in
/// turn replaced by values no field holds.
enum Mutations {
    static let extremes = [
        "9223372036854775808", "9223372036854775807", "18446744073709551616", "-9223372036854775809", "1e300", "-1e300",
        "-1", "0", "1.5", "-0.0", "1e-300", "4294967296", "99999999999999999999999999999",
    ]

    /// The byte ranges of the JSON/YAML numbers in `bytes`.
    static func numbers(in bytes: [UInt8]) -> [Range<Int>] {
        var out: [Range<Int>] = [], i = 0
        func digit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        while i < bytes.count {
            let prev = i > 0 ? bytes[i - 1] : 0x20
            let startsNumber = digit(bytes[i]) || (bytes[i] == 0x2d && i + 1 < bytes.count && digit(bytes[i + 1]))
            let afterWordChar = (prev >= 0x41 && prev <= 0x5a) || (prev >= 0x61 && prev <= 0x7a) || digit(prev) || prev == 0x5f || prev == 0x2e
            if startsNumber && !afterWordChar {
                var j = i + 1
                while j < bytes.count, digit(bytes[j]) || bytes[j] == 0x2e || bytes[j] == 0x65 || bytes[j] == 0x2b || bytes[j] == 0x2d { j += 1 }
                out.append(i..<j)
                i = j
            } else {
                i += 1
            }
        }
        return out
    }

    /// `count` mutants of `seed`: a third number replacements (every number
    /// gets each extreme before any repeats), the rest byte flips and cuts.
    static func mutants(of seed: [UInt8], count: Int, rng: inout SplitMix) -> [[UInt8]] {
        let spots = numbers(in: seed)
        var out: [[UInt8]] = []
        var k = 0
        while out.count < count {
            var m = seed
            switch out.count % 3 {
            case 0 where !spots.isEmpty:
                let spot = spots[k % spots.count], value = extremes[(k / spots.count) % extremes.count]
                m.replaceSubrange(spot, with: Array(value.utf8))
                k += 1
            case 1:
                for _ in 0..<Int.random(in: 1...8, using: &rng) where !m.isEmpty {
                    m[Int.random(in: 0..<m.count, using: &rng)] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
                }
            default:
                if Bool.random(using: &rng), !m.isEmpty {
                    m.removeLast(Int.random(in: 1...m.count, using: &rng))
                } else if !m.isEmpty {
                    let at = Int.random(in: 0..<m.count, using: &rng)
                    m.insert(contentsOf: Array(extremes.randomElement(using: &rng)!.utf8), at: at)
                }
            }
            out.append(m)
        }
        return out
    }
}

/// At least 5 000 mutants of real reports (a crash, a leak report, a heap
/// error) through the report loader, and the ones that still load through
/// every formatter `report show`, `report list` and `exec --leaks` use:
/// the test process crashing is the failure.
@Suite struct ReportFuzzTests {
    @Test func mutatedReportsNeverCrashTheLoaderOrTheFormatters() throws {
        let dir = try OwnedTemporaryDirectory("faultline-report-fuzz")
        var seeds: [[UInt8]] = []
        seeds.append(Array(try ReportNumberTests.leakReportText(in: dir.path).utf8))
        let crash = try Victims.crashC("null-deref", in: dir.path + "/crash")
        seeds.append(Array(try Data(contentsOf: URL(fileURLWithPath: crash.path))))
        let heap = try Victims.heap("double-free", in: dir.path + "/heap")
        seeds.append(Array(try Data(contentsOf: URL(fileURLWithPath: heap.path))))
        var rng = SplitMix(state: 31)
        var loaded = 0, refused = 0
        for seed in seeds {
            for m in Mutations.mutants(of: seed, count: 1800, rng: &rng) {
                do {
                    let r = try ReportStore.decode(Data(m), path: "mutant.json")
                    loaded += 1
                    _ = ReportFormatter().format(r)
                    _ = ReportSummary.oneLine(r)
                    _ = LeakSummary().render([r])
                } catch {
                    refused += 1
                    #expect(!error.description.contains("\n"), "\(error)")
                }
            }
        }
        #expect(loaded + refused == 5400)
        #expect(loaded > 100 && refused > 1000, "loaded \(loaded), refused \(refused)")
    }
}
