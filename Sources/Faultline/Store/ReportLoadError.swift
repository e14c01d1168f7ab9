/// Why a file in a report directory could not be read as a report. Its
/// description is one line naming the file and what to do.
public struct ReportLoadError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The kinds of bad file.
    public enum Reason: Sendable, Equatable {
        /// The file could not be read; the text says why and what to do.
        case unreadable(String)
        /// Zero bytes, or only white space.
        case empty
        /// A report that starts as JSON but stops early.
        case truncated
        /// Not JSON at all; the text says where parsing failed.
        case notJSON(String)
        /// Valid JSON without `"schema": "faultline.report"`.
        case foreign
        /// A report of a schema version newer than this build reads.
        case unsupportedVersion(Int)
        /// Our schema, but a field is missing or of the wrong type.
        case invalid(String)
    }

    /// The file.
    public let path: String
    /// What is wrong with it.
    public let reason: Reason

    /// Creates an error.
    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    /// One line even when the path holds a newline or another control
    /// character (written as an escape).
    public var description: String { OneLine.escaped(text) }

    private var text: String {
        switch reason {
        case .unreadable(let why): return "\(path): cannot read: \(why)"
        case .empty: return "\(path): empty file, not a report; delete it"
        case .truncated: return "\(path): truncated report (JSON ends early); the writer was interrupted, delete it"
        case .notJSON(let why): return "\(path): not JSON (\(why)); not a Faultline report, move it out of the report directory"
        case .foreign: return "\(path): JSON but not a Faultline report (no \"schema\": \"faultline.report\"); move it out of the report directory"
        case .unsupportedVersion(let v):
            return "\(path): report schema version \(v) is newer than this faultline reads (\(ReportStore.supportedSchemaVersion)); update faultline"
        case .invalid(let why): return "\(path): malformed report (\(why)); it was not written by a Faultline agent or was edited"
        }
    }
}
