import Foundation

/// The code regions a JIT runtime lists in a perf map file
/// (`/tmp/perf-<pid>.map`, the convention perf reads): one line per region,
/// `START SIZE NAME`, START and SIZE in hex (an `0x` prefix is accepted, as
/// perf's parser does), NAME the rest of the line. A later line overrides
/// earlier ones for the addresses it covers (a runtime reuses code space).
/// node writes it with `--perf-basic-prof`, CPython 3.12+ with `-X perf`, the
/// JVM through perf-map-agent.
///
/// The file is another program's: a line that does not parse is skipped.
/// Lookups sort once and binary search.
public struct PerfMap: Sendable {
    /// One region: `[start, start + size)` named `name`.
    public struct Region: Sendable, Hashable {
        public var start: UInt64
        public var size: UInt64
        public var name: String
        /// Position of the line in the text; a later line wins.
        var line: Int
        var end: UInt64 { start &+ size }
    }

    /// The regions, by start address.
    public let regions: [Region]
    /// Lines skipped because they did not parse.
    public let skippedLines: Int
    /// `maxEnd[i]`: the highest end of `regions[0...i]`, which bounds the
    /// backward scan for regions that overlap a later start.
    private let maxEnd: [UInt64]

    /// Parses `text`, skipping malformed lines.
    public init(text: Substring) {
        self.init(bytes: Array(text.utf8))
    }

    /// Parses the file's bytes, skipping malformed lines. Works on bytes,
    /// not Characters: a 64 MiB file took 6.7 s the other way (debug build).
    public init(bytes: [UInt8]) {
        var regions: [Region] = []
        var skipped = 0
        var number = 0
        var lineStart = 0
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count && bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            if lineEnd > lineStart {
                number += 1
                if let r = Self.region(bytes[lineStart..<lineEnd], number: number) { regions.append(r) } else { skipped += 1 }
            }
            lineStart = lineEnd + 1
        }
        regions.sort { ($0.start, $0.line) < ($1.start, $1.line) }
        var most: UInt64 = 0
        self.maxEnd = regions.map { most = max(most, $0.end); return most }
        self.regions = regions
        self.skippedLines = skipped
    }

    /// The name of the region holding `pc`, the latest line's when several
    /// do; nil when none does.
    public func name(at pc: UInt64) -> String? {
        // The last region starting at or below pc.
        var low = 0, high = regions.count
        while low < high {
            let mid = (low + high) / 2
            if regions[mid].start <= pc { low = mid + 1 } else { high = mid }
        }
        var best: Region?
        var i = low - 1
        while i >= 0 && maxEnd[i] > pc {
            let r = regions[i]
            if pc < r.end, best.map({ r.line > $0.line }) ?? true { best = r }
            i -= 1
        }
        return best?.name
    }

    /// One line (without its newline) as a region, nil when it is not
    /// `HEX HEX NAME` with a non-zero size that does not wrap around.
    static func region(_ line: ArraySlice<UInt8>, number: Int) -> Region? {
        let space = UInt8(ascii: " ")
        guard let firstSpace = line.firstIndex(of: space),
              let secondSpace = line[(firstSpace + 1)...].firstIndex(of: space),
              let start = hex(line[line.startIndex..<firstSpace]), let size = hex(line[(firstSpace + 1)..<secondSpace]),
              size > 0, start.addingReportingOverflow(size).overflow == false
        else { return nil }
        // The name, without surrounding blanks and a CRLF file's "\r".
        var nameStart = secondSpace + 1, nameEnd = line.endIndex
        func blank(_ b: UInt8) -> Bool { b == space || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\r") }
        while nameStart < nameEnd && blank(line[nameStart]) { nameStart += 1 }
        while nameEnd > nameStart && blank(line[nameEnd - 1]) { nameEnd -= 1 }
        guard nameEnd > nameStart else { return nil }
        return Region(start: start, size: size, name: String(decoding: line[nameStart..<nameEnd], as: UTF8.self), line: number)
    }

    /// Up to 16 hex digits, after an optional `0x`.
    private static func hex(_ field: ArraySlice<UInt8>) -> UInt64? {
        var digits = field
        if digits.count > 2, digits[digits.startIndex] == UInt8(ascii: "0"), digits[digits.startIndex + 1] == UInt8(ascii: "x") {
            digits = digits.dropFirst(2)
        }
        guard !digits.isEmpty, digits.count <= 16 else { return nil }
        var value: UInt64 = 0
        for b in digits {
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}
