import Yams

/// Typed access to Yams nodes that turns every mismatch into a
/// `ScenarioLoadError` naming the file and the node's line.
struct YAMLNodeReader {
    /// The file being read (as shown in errors).
    let file: String

    /// The location of `node` (line 1 when Yams has no mark).
    func location(_ node: Node) -> SourceLocation {
        SourceLocation(file: file, line: node.mark?.line ?? 1)
    }

    /// An error at `node`.
    func error(_ node: Node, _ message: String) -> ScenarioLoadError {
        ScenarioLoadError(location(node), message)
    }

    /// The entries of a mapping, rejecting keys outside `allowed`.
    func mapping(_ node: Node, _ what: String, allowed: [String]) throws(ScenarioLoadError) -> [(key: String, keyNode: Node, value: Node)] {
        guard case .mapping(let mapping) = node else {
            throw error(node, "\(what) must be a mapping of key: value lines, found \(kind(of: node))")
        }
        var entries: [(key: String, keyNode: Node, value: Node)] = []
        for (keyNode, value) in mapping {
            guard case .scalar(let scalar) = keyNode else {
                throw error(keyNode, "keys in \(what) must be plain words, found \(kind(of: keyNode))")
            }
            let key = scalar.string
            if !allowed.contains(key) {
                var hint = "known keys: \(allowed.joined(separator: ", "))"
                if let near = Self.nearest(key, in: allowed) { hint = "did you mean '\(near)'? (\(hint))" }
                throw error(keyNode, "unknown key '\(key)' in \(what); \(hint)")
            }
            entries.append((key, keyNode, value))
        }
        return entries
    }

    /// A mapping whose keys are free-form (e.g. `env`, `match`).
    func freeMapping(_ node: Node, _ what: String) throws(ScenarioLoadError) -> [(key: String, keyNode: Node, value: Node)] {
        guard case .mapping(let mapping) = node else {
            throw error(node, "\(what) must be a mapping, found \(kind(of: node))")
        }
        var entries: [(key: String, keyNode: Node, value: Node)] = []
        for (keyNode, value) in mapping {
            guard case .scalar(let scalar) = keyNode else {
                throw error(keyNode, "keys in \(what) must be plain text, found \(kind(of: keyNode))")
            }
            try refuseNUL(scalar.string, keyNode, "a key in \(what)")
            entries.append((scalar.string, keyNode, value))
        }
        return entries
    }

    /// A scalar as text. A NUL (`"\0"` in YAML) is refused: arguments,
    /// environment and paths are C strings, which silently ended there.
    func string(_ node: Node, _ what: String) throws(ScenarioLoadError) -> String {
        guard case .scalar(let scalar) = node else {
            throw error(node, "\(what) must be a single value, found \(kind(of: node))")
        }
        try refuseNUL(scalar.string, node, what)
        // Only a match value puts the pid there; anywhere else a scenario
        // would pass or look for the literal text without a word.
        if isPlain(node), scalar.string == MatchValue.victimPidSpelling {
            throw error(node, "\(what) is \(scalar.string), which stands for the victim's pid only in a match value "
                + "(expect.reports[].match); quote it (\"\(scalar.string)\") to mean the text")
        }
        return scalar.string
    }

    private func refuseNUL(_ text: String, _ node: Node, _ what: String) throws(ScenarioLoadError) {
        if text.utf8.contains(0) {
            throw error(node, "\(what) '\(text)' contains a NUL character, which cannot be passed to a program; remove it")
        }
    }

    /// A non-empty scalar.
    func nonEmptyString(_ node: Node, _ what: String) throws(ScenarioLoadError) -> String {
        let s = try string(node, what)
        if s.isEmpty || isNull(node) { throw error(node, "\(what) is empty; give it a value") }
        return s
    }

    /// A list of scalars as text.
    func stringList(_ node: Node, _ what: String, example: String) throws(ScenarioLoadError) -> [(String, Node)] {
        guard case .sequence(let sequence) = node else {
            throw error(node, "\(what) must be a list, e.g. \(what): \(example); found \(kind(of: node))")
        }
        var out: [(String, Node)] = []
        for item in sequence {
            out.append((try string(item, "each entry of \(what)"), item))
        }
        return out
    }

    /// A boolean (`true`/`false`).
    func bool(_ node: Node, _ what: String) throws(ScenarioLoadError) -> Bool {
        let s = try string(node, what)
        switch s {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: throw error(node, "\(what) must be true or false, found '\(s)'")
        }
    }

    /// A number.
    func number(_ node: Node, _ what: String) throws(ScenarioLoadError) -> Double {
        let s = try string(node, what)
        guard isPlain(node), let d = Double(s), d.isFinite else {
            throw error(node, "\(what) must be a number, found '\(s)'")
        }
        return d
    }

    /// True for an unquoted scalar (whose type YAML infers).
    func isPlain(_ node: Node) -> Bool {
        if case .scalar(let s) = node { return s.style == .plain || s.style == .any }
        return false
    }

    /// True for `~`, `null` or nothing, unquoted.
    func isNull(_ node: Node) -> Bool {
        guard isPlain(node), case .scalar(let s) = node else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(s.string)
    }

    /// "a list", "a mapping", "'text'" for messages.
    func kind(of node: Node) -> String {
        switch node {
        case .scalar(let s): return isNull(node) ? "nothing" : "'\(s.string)'"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        default: return "an alias (not supported)"
        }
    }

    /// The closest allowed key within edit distance 2, for "did you mean".
    static func nearest(_ key: String, in allowed: [String]) -> String? {
        let scored = allowed.map { ($0, editDistance(key, $0)) }.filter { $0.1 <= 2 }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// Levenshtein distance.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        var prev = Array(0...b.count)
        for i in 1...a.count {
            var cur = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            prev = cur
        }
        return prev[b.count]
    }
}
