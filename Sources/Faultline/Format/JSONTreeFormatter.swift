import Foundation

/// Formats a detector section the report model does not type as an indented
/// `key: value` tree, so a new detector's sections show up without a change
/// here. Stacks inside it (arrays of objects with a `"pc"`) are printed like
/// thread stacks.
struct JSONTreeFormatter {
    /// Formats stacks found in the tree.
    var stacks: StackFormatter
    /// Longest string shown on one line; longer ones are cut with a count.
    var maxInlineString = 400

    /// The lines for `value` under `key`, indented by `indent`.
    func lines(key: String, _ value: JSONValue, indent: String) -> [String] {
        switch value {
        case .object(let o):
            if o.isEmpty { return ["\(indent)\(key): {}"] }
            var out = ["\(indent)\(key):"]
            for (k, v) in o.sorted(by: { $0.key < $1.key }) { out += lines(key: k, v, indent: indent + "  ") }
            return out
        case .array(let items):
            if items.isEmpty { return ["\(indent)\(key): []"] }
            if let frames = SectionFrames.frames(items) {
                return ["\(indent)\(key):"] + stacks.lines(frames, indent: indent + "  ")
            }
            if items.allSatisfy(Self.isScalar) {
                let inline = items.map(scalar).joined(separator: ", ")
                if inline.count <= 100 { return ["\(indent)\(key): [\(inline)]"] }
            }
            var out = ["\(indent)\(key):"]
            for (i, item) in items.enumerated() { out += lines(key: "[\(i)]", item, indent: indent + "  ") }
            return out
        default:
            let text = scalar(value)
            if case .string(let s) = value, s.contains("\n") {
                return ["\(indent)\(key):"] + s.split(separator: "\n", omittingEmptySubsequences: false)
                    .map { "\(indent)  | \($0)" }
            }
            return ["\(indent)\(key): \(text)"]
        }
    }

    private static func isScalar(_ v: JSONValue) -> Bool {
        switch v {
        case .array, .object: return false
        default: return true
        }
    }

    /// A scalar as text: integers without a fraction, strings unquoted.
    func scalar(_ v: JSONValue) -> String {
        switch v {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n):
            if n.rounded() == n && abs(n) < 1e15 { return String(Int64(n)) }
            return String(n)
        case .string(let s):
            if s.count > maxInlineString { return String(s.prefix(maxInlineString)) + "… (\(s.count) characters)" }
            return s
        case .array(let a): return "[\(a.count) items]"
        case .object(let o): return "{\(o.count) keys}"
        }
    }
}
