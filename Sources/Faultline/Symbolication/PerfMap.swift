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
        var regions: [Region] = []
        var skipped = 0
        var number = 0
        // "\r\n" is one Character in Swift, so it is a separator of its own.
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            if let r = Self.region(line, number: number) { regions.append(r) } else { skipped += 1 }
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

    /// One line as a region, nil when it is not `HEX HEX NAME` with a
    /// non-zero size that does not wrap around.
    static func region(_ line: Substring, number: Int) -> Region? {
        let line = line.hasSuffix("\r") ? line.dropLast() : line
        let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, let start = hex(fields[0]), let size = hex(fields[1]), size > 0,
              start.addingReportingOverflow(size).overflow == false
        else { return nil }
        let name = fields[2].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return nil }
        return Region(start: start, size: size, name: name, line: number)
    }

    private static func hex(_ field: Substring) -> UInt64? {
        let digits = field.hasPrefix("0x") ? field.dropFirst(2) : field
        guard !digits.isEmpty, digits.count <= 16 else { return nil }
        return UInt64(digits, radix: 16)
    }
}
