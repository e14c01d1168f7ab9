@testable import Faultline
import Foundation
import Testing

/// The perf map parser and lookup (`PerfMap`), on a real file node wrote
/// (`PerfMapFixture`) and on lines made to break it.
@Suite struct PerfMapTests {
    @Test func namesNodesJITFrameFromItsOwnMap() throws {
        let map = PerfMap(text: PerfMapFixture.node[...])
        #expect(map.skippedLines == 0)
        #expect(map.regions.count == PerfMapFixture.node.split(separator: "\n").count)
        // Looked up inside the call, as a return address is.
        #expect(map.name(at: PerfMapFixture.spinReturnAddress - 1) == "JS:*spin /tmp/h70-busy.js:1:14")
        // The ends of a region: the start is in it, start + size is not.
        #expect(map.name(at: 0x7f42c9ec5b80) == "JS:^spin /tmp/h70-busy.js:1:14")
        #expect(map.name(at: 0x7f42c9ec5b80 + 0x177) == "JS:^spin /tmp/h70-busy.js:1:14")
        #expect(map.name(at: 0x7f42c9ec5b80 + 0x178) == nil)
        #expect(map.name(at: 0x18c4000) == "Builtin:DeoptimizationEntry_Eager")
        #expect(map.name(at: 0x18c3fff) == nil)
        #expect(map.name(at: 0) == nil)
        #expect(map.name(at: .max) == nil)
    }

    @Test func aLaterLineOverridesEarlierOnesForTheAddressesItCovers() {
        let map = PerfMap(text: """
            1000 100 old
            1000 100 reused
            2000 1000 outer
            2400 100 inner
            5000 10 narrow-listed-first
            4ff0 100 wide-listed-last
            """[...])
        #expect(map.name(at: 0x1050) == "reused")
        #expect(map.name(at: 0x2450) == "inner")
        #expect(map.name(at: 0x2500) == "outer")
        #expect(map.name(at: 0x23ff) == "outer")
        // A region that starts lower but was listed later still wins where
        // it covers the earlier line's addresses.
        #expect(map.name(at: 0x5005) == "wide-listed-last")
        #expect(map.name(at: 0x50ef) == "wide-listed-last")
        #expect(map.name(at: 0x50f0) == nil)
    }

    @Test func malformedLinesAreSkippedAndTheRestKept() {
        let map = PerfMap(text: """
            1000 10 good
            zzzz 10 not-hex
            2000 10
            3000 0 empty
            4000 10\u{20}
            ffffffffffffffff 10 wraps
            10000000000000000 10 too-long
            0x5000 0x10 with-prefix
            6000 10 name with spaces (and/paths:1:2)\r
            6100 10 crlf-ended\r
            garbage
            7000 -10 negative
            """[...])
        #expect(map.skippedLines == 8)
        #expect(map.name(at: 0x1005) == "good")
        #expect(map.name(at: 0x2005) == nil)
        #expect(map.name(at: 0x5005) == "with-prefix")
        #expect(map.name(at: 0x6005) == "name with spaces (and/paths:1:2)")
        #expect(map.name(at: 0x6105) == "crlf-ended")
        #expect(map.name(at: 0x7005) == nil)
    }

    @Test func aFileBiggerThanTheBoundIsReadFromItsLastWholeLine() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = "\(dir)/perf-1.map"
        let text = (0..<100).map { String(format: "%x 10 f%d\n", 0x1000 + $0 * 0x10, $0) }.joined()
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let tail = try #require(PerfMapFile.readTail(path, limit: 100))
        let map = PerfMap(bytes: tail)
        // No cut line parsed as a region; the newest lines kept.
        #expect(map.skippedLines == 0)
        #expect(map.name(at: 0x1000 + 99 * 0x10) == "f99")
        #expect(map.name(at: 0x1000) == nil)
        #expect(map.regions.count == tail.split(separator: UInt8(ascii: "\n")).count && map.regions.count < 100)
        #expect(PerfMapFile.readTail(path)?.count == text.count)
    }
}
