import Faultline

/// A scenario file that cannot be used. Its description is one line:
/// `FILE:LINE: what is wrong and what to do`.
public struct ScenarioLoadError: Error, Sendable, CustomStringConvertible, Equatable {
    /// Where the problem is.
    public var location: SourceLocation
    /// What is wrong and what to do.
    public var message: String

    /// Creates an error.
    public init(_ location: SourceLocation, _ message: String) {
        self.location = location
        self.message = message
    }

    /// One line even when the file name or a quoted value holds a newline
    /// or another control character (written as an escape).
    public var description: String { OneLine.escaped("\(location): \(message)") }
}
