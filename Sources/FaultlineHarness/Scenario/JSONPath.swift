import Faultline

/// A dotted path into JSON: `a.b[0].c` (object keys, array indexes).
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    /// The steps, outermost first.
    public var components: [Component]
    /// The path as written.
    public var description: String

    /// Parses `text`; nil with a reason when malformed.
    public static func parse(_ text: String) -> Result<JSONPath, PathSyntaxError> {
        var components: [Component] = []
        var key = ""
        var chars = Array(text)[...]
        func flushKey() -> Bool {
            guard !key.isEmpty else { return false }
            components.append(.key(key))
            key = ""
            return true
        }
        var afterIndex = false
        while let c = chars.popFirst() {
            switch c {
            case ".":
                if !flushKey() && !afterIndex { return .failure(PathSyntaxError(path: text, problem: "empty key")) }
                afterIndex = false
            case "[":
                if !flushKey() && !afterIndex { return .failure(PathSyntaxError(path: text, problem: "'[' must follow a key")) }
                guard let close = chars.firstIndex(of: "]") else {
                    return .failure(PathSyntaxError(path: text, problem: "unclosed '['"))
                }
                guard let i = Int(String(chars[chars.startIndex..<close])), i >= 0 else {
                    return .failure(PathSyntaxError(path: text, problem: "array index must be a number >= 0"))
                }
                components.append(.index(i))
                chars = chars[chars.index(after: close)...]
                afterIndex = true
            case "]":
                return .failure(PathSyntaxError(path: text, problem: "']' without '['"))
            default:
                if afterIndex { return .failure(PathSyntaxError(path: text, problem: "expected '.' or '[' after ']'")) }
                key.append(c)
            }
        }
        if !flushKey() && !afterIndex { return .failure(PathSyntaxError(path: text, problem: "empty key")) }
        return .success(JSONPath(components: components, description: text))
    }

    /// The value at this path in `root`, or nil (with how far it got) when
    /// the path leads nowhere.
    public func resolve(in root: JSONValue) -> (value: JSONValue?, missingAt: String?) {
        var current = root
        var walked = ""
        for component in components {
            switch component {
            case .key(let k):
                walked += walked.isEmpty ? k : ".\(k)"
                guard let next = current[k] else { return (nil, walked) }
                current = next
            case .index(let i):
                walked += "[\(i)]"
                guard let array = current.arrayValue, array.indices.contains(i) else { return (nil, walked) }
                current = array[i]
            }
        }
        return (current, nil)
    }

    /// True when some key of the path equals `key`.
    func mentions(_ key: String) -> Bool { components.contains(.key(key)) }
}

/// Why a `match:` path does not parse.
public struct PathSyntaxError: Error, Sendable, CustomStringConvertible {
    /// The path as written.
    public var path: String
    /// What is wrong.
    public var problem: String
    public var description: String { "bad path '\(path)': \(problem)" }
}
