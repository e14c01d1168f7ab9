import Foundation

/// One failed check, printed `check: expected X, found Y`.
public struct CheckFailure: Sendable, Codable, Equatable, CustomStringConvertible {
    /// The check, e.g. `signal`, `frames`, `match recrash.stage`, `exit`.
    public var check: String
    /// What the scenario expected.
    public var expected: String
    /// What the run showed.
    public var found: String

    /// Creates a failure.
    public init(_ check: String, expected: String, found: String) {
        self.check = check
        self.expected = expected
        self.found = found
    }

    public var description: String { "\(check): expected \(expected), found \(found)" }
}

/// Shortens long text for messages: at most `limit` characters, newlines shown as ⏎.
func abbreviate(_ text: String, limit: Int = 160) -> String {
    let flat = text.replacingOccurrences(of: "\n", with: "⏎")
    return flat.count <= limit ? flat : String(flat.prefix(limit)) + "…"
}
