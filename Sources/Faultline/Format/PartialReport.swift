import Foundation

/// Recovers what it can from the cut-short JSON of a first report attempt
/// that a recrash report carries (`recrash.partial_report`): the text is cut
/// back to its last complete value and its open objects and arrays closed.
public enum PartialReport {
    /// The longest prefix of `text` that parses once closed, as a JSON value.
    public static func salvage(_ text: String) -> JSONValue? {
        let bytes = Array(text.utf8)
        var stack: [UInt8] = []
        var inString = false, escaped = false
        // (cut position, closers needed there), latest last.
        var cuts: [(Int, [UInt8])] = []
        for (i, b) in bytes.enumerated() {
            if inString {
                if escaped { escaped = false }
                else if b == UInt8(ascii: "\\") { escaped = true }
                else if b == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch b {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"): stack.append(UInt8(ascii: "}")); cuts.append((i + 1, stack))
            case UInt8(ascii: "["): stack.append(UInt8(ascii: "]")); cuts.append((i + 1, stack))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !stack.isEmpty { stack.removeLast() }
                cuts.append((i + 1, stack))
            case UInt8(ascii: ","): cuts.append((i, stack))
            default: break
            }
        }
        for (position, closers) in cuts.reversed().prefix(64) {
            let candidate = Array(bytes[0..<position]) + closers.reversed()
            if let value = try? JSONDecoder().decode(JSONValue.self, from: Data(candidate)) { return value }
        }
        return nil
    }

    /// The crashed thread of the first attempt, when it got that far.
    public static func crashedThread(in text: String) -> Report.ThreadInfo? {
        guard let thread = salvage(text)?["crashed_thread"] else { return nil }
        return try? thread.decode(Report.ThreadInfo.self)
    }
}
