import Foundation

/// Looks at bytes that failed to parse as JSON, to say why in one line.
enum JSONShape {
    /// True when `data` is a JSON text cut short: at its end a string or an
    /// object/array is still open. (Garbage that merely never closes is
    /// counted too; the caller first checks that it starts like a report.)
    static func isUnterminatedPrefix(_ data: Data) -> Bool {
        var depth = 0, inString = false, escaped = false
        for byte in data {
            if inString {
                if escaped { escaped = false }
                else if byte == UInt8(ascii: "\\") { escaped = true }
                else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth < 0 { return false }
            default: break
            }
        }
        return inString || depth > 0
    }

    /// The first number in a parsed JSON value (keys in order) that no
    /// 64-bit field holds, with its path (`process.pid`), or nil.
    static func firstOversizedNumber(in value: Any, at path: String = "") -> (String, String)? {
        switch value {
        case let dict as [String: Any]:
            for (key, item) in dict.sorted(by: { $0.key < $1.key }) {
                if let found = firstOversizedNumber(in: item, at: path.isEmpty ? key : path + "." + key) { return found }
            }
        case let array as [Any]:
            for (i, item) in array.enumerated() {
                if let found = firstOversizedNumber(in: item, at: "\(path)[\(i)]") { return found }
            }
        case let number as NSNumber where !(number is NSDecimalNumber):
            if abs(number.doubleValue) >= 18446744073709551616.0 { return (path, number.stringValue) }
        case let number as NSDecimalNumber:
            let d = number.doubleValue
            if abs(d) >= 9223372036854775808.0 && !(d > 0 && d < 18446744073709551616.0) { return (path, number.stringValue) }
        default: break
        }
        return nil
    }

    /// "invalid JSON at line 3, column 7" from a JSONSerialization error
    /// ("… around character 123."), else its own text.
    static func describeParseError(_ error: Error, in data: Data) -> String {
        let text = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "does not parse"
        guard let r = text.range(of: "character "),
              let offset = Int(text[r.upperBound...].prefix { $0.isNumber })
        else { return text.hasSuffix(".") ? String(text.dropLast()) : text }
        var line = 1, column = 1
        for byte in data.prefix(offset) {
            if byte == 0x0a { line += 1; column = 1 } else { column += 1 }
        }
        // Valid JSON can be refused for its depth alone; "invalid JSON"
        // sent people looking for a syntax error that is not there.
        if text.hasPrefix("Too many nested") {
            return "arrays and objects nested more than 512 deep at line \(line), column \(column); no report nests so deep"
        }
        return "invalid JSON at line \(line), column \(column)"
    }
}
