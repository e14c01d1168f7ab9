/// Why a file in a report directory could not be read as a report. Its
/// description is one line naming the file and what to do.
public struct ReportLoadError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The kinds of bad file.
    public enum Reason: Sendable, Equatable {
        case unreadable(String)
        case empty
        case truncated
        case notJSON(String)
        case foreign
        case unsupportedVersion(Int)
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

    public var description: String {
        switch reason {
        case .unreadable(let why): return "\(path): cannot read (\(why)); check its permissions"
        case .empty: return "\(path): empty file, not a report; delete it"
        case .truncated: return "\(path): truncated report (JSON ends early); the writer was interrupted, delete it"
        case .notJSON(let why): return "\(path): not JSON (\(why)); not a Faultline report"
        case .foreign: return "\(path): JSON but not a Faultline report (no \"schema\": \"faultline.report\")"
        case .unsupportedVersion(let v):
            return "\(path): report schema version \(v) is newer than this faultline reads (\(ReportStore.supportedSchemaVersion)); update faultline"
        case .invalid(let why): return "\(path): malformed report (\(why))"
        }
    }
}
