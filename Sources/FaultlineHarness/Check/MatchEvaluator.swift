import Faultline
import Foundation

/// Judges a `match:` value against the JSON found at its path.
enum MatchEvaluator {
    /// nil when `found` satisfies `expected`, else a description of what was
    /// found. `victimPid` is what `$victim_pid` stands for (nil: not known,
    /// and nothing equals it).
    static func mismatch(_ expected: MatchValue, _ found: JSONValue?, victimPid: Int32?) -> String? {
        switch expected {
        case .null:
            if found == nil || found == .null { return nil }
            return describe(found)
        case .string(let s):
            switch found {
            case .string(let f)?: return f.contains(s) ? nil : describe(found)
            case .number(let n)?: return formatNumber(n) == s ? nil : describe(found)
            case .bool(let b)?: return String(b) == s ? nil : describe(found)
            default: return describe(found)
            }
        case .number(let n):
            if case .number(let f)? = found, f == n { return nil }
            return describe(found)
        case .bool(let b):
            if case .bool(let f)? = found, f == b { return nil }
            return describe(found)
        case .contains(let items):
            guard case .array(let elements)? = found else { return describe(found) }
            let pairs = BipartiteMatching.match(left: items.count, right: elements.count) { i, e in
                mismatch(items[i], elements[e], victimPid: victimPid) == nil
            }
            let missing = items.indices.filter { pairs[$0] == nil }.map { items[$0].description }
            if missing.isEmpty { return nil }
            return "no element matching \(missing.joined(separator: ", ")) in \(describe(found))"
        case .object(let entries):
            guard let found, case .object = found else { return describe(found) }
            for entry in entries {
                let (value, _) = entry.path.resolve(in: found)
                if let m = mismatch(entry.expected, value, victimPid: victimPid) { return "\(entry.path) = \(m) in \(describe(found))" }
            }
            return nil
        case .victimPid:
            guard let victimPid else { return "\(describe(found)) (the victim's pid is not known)" }
            if case .number(let f)? = found, f == Double(victimPid) { return nil }
            return describe(found)
        }
    }

    /// Compact JSON for messages (abbreviated), or "nothing".
    static func describe(_ value: JSONValue?) -> String {
        guard let value else { return "nothing" }
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? e.encode(value) else { return "?" }
        return abbreviate(String(decoding: data, as: UTF8.self), limit: 200)
    }
}
