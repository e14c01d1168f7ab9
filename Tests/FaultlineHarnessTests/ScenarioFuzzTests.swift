import Faultline
import Foundation
import Testing
@testable import FaultlineHarness

/// A deterministic generator (splitmix64).
private struct Mix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

/// At least 1 000 mutants of the shipped scenario files (byte flips, cuts,
/// lines dropped or doubled, values swapped for extremes) through the
/// loader: each loads or is one `FILE:LINE:` line; none crashes it.
@Suite struct ScenarioFuzzTests {
    static let extremes = ["..", ".", "9223372036854775808", "1e300", "-1", "0", "1e-300ms", "99999999999G", "~", "[", "{a: [", "*x", "&a b", "\"\\u0000\"", "'", "SIGRTMAX+99"]

    @Test func mutatedScenarioFilesNeverCrashTheLoader() throws {
        let root = try #require(BuildDirectory.ofRunningExecutable().packageRoot()) + "/Scenarios"
        let files = ScenarioSuite.scenarioFiles(in: root).files
        #expect(files.count > 100)
        var rng = Mix(state: 31)
        let loader = ScenarioLoader()
        var loaded = 0, refused = 0
        for i in 0..<1500 {
            let relative = files[i % files.count]
            var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + relative)))
            switch i % 4 {
            case 0:
                for _ in 0..<Int.random(in: 1...6, using: &rng) where !bytes.isEmpty {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
                }
            case 1:
                if !bytes.isEmpty { bytes.removeLast(Int.random(in: 1...bytes.count, using: &rng)) }
            case 2:
                var lines = bytes.split(separator: 0x0a, omittingEmptySubsequences: false).map(Array.init)
                let at = Int.random(in: 0..<lines.count, using: &rng)
                if Bool.random(using: &rng) { lines.remove(at: at) } else { lines.insert(lines[at], at: at) }
                bytes = Array(lines.joined(separator: [0x0a]))
            default:
                // A value after some ": " swapped for an extreme.
                let text = String(decoding: bytes, as: UTF8.self)
                let colons = text.indices.filter { text[$0] == ":" }
                if let c = colons.randomElement(using: &rng) {
                    let lineEnd = text[c...].firstIndex(of: "\n") ?? text.endIndex
                    let value = Self.extremes.randomElement(using: &rng) ?? ".."
                    bytes = Array((String(text[..<text.index(after: c)]) + " " + value + String(text[lineEnd...])).utf8)
                }
            }
            let yaml = String(decoding: bytes, as: UTF8.self)
            do {
                _ = try loader.parseAll(yaml: yaml, file: relative, pathName: ScenarioLoader.name(forRelativePath: relative))
                loaded += 1
            } catch {
                refused += 1
                #expect(!error.description.contains("\n"), "\(error)")
                #expect(error.description.hasPrefix(relative + ":"), "\(error)")
            }
        }
        #expect(loaded + refused == 1500)
        #expect(loaded > 50 && refused > 300, "loaded \(loaded), refused \(refused)")
    }
}
