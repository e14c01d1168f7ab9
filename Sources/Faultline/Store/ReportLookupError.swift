import Foundation

/// Why `faultline report show ID` found no single report. Its description
/// is one line naming the id, the directory and what to do.
public enum ReportLookupError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The argument is neither an existing file nor hex digits.
    case notAnID(String)
    /// The argument is a path (it has a `/` or ends in `.json`) that could
    /// not be looked at: the path, and why with what to do.
    case unreadablePath(String, String)
    /// The report directory does not exist.
    case noDirectory(String)
    /// No report id starts with the prefix.
    case notFound(String, String)
    /// Several reports start with the prefix: (id, path) of each.
    case ambiguous(String, [(String, String)])

    /// One line, whatever the path or id holds.
    public var description: String { OneLine.escaped(text) }

    private var text: String {
        switch self {
        case .notAnID(let s):
            return "'\(s)' is neither a report file nor a report id (hex digits); give a path or an id from `faultline report list`"
        case .unreadablePath(let path, let why):
            return "\(path): cannot read: \(why)"
        case .noDirectory(let dir):
            return "no report directory \(dir); pass --dir DIR or run a program with `faultline exec -- CMD` first"
        case .notFound(let id, let dir):
            return "no report with id '\(id)' in \(dir); `faultline report list \(dir)` shows the ids"
        case .ambiguous(let id, let candidates):
            let shown = candidates.prefix(8).map { "\($0.0) (\(($0.1 as NSString).lastPathComponent))" }.joined(separator: ", ")
            let more = candidates.count > 8 ? ", and \(candidates.count - 8) more" : ""
            return "id prefix '\(id)' matches \(candidates.count) reports: \(shown)\(more); give more digits"
        }
    }

    public static func == (a: ReportLookupError, b: ReportLookupError) -> Bool { a.description == b.description }
}
