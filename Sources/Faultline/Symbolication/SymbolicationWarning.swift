/// Why some frames of a report were left unsymbolicated. Its description is
/// one line naming the image and what happened.
public struct SymbolicationWarning: Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Hashable {
        /// The file at the image's path has another build-id than the one
        /// loaded at the time of the report (`found` is nil when the file
        /// has none), and no debug file with the report's build-id exists.
        case buildIDMismatch(expected: String, found: String?)
        /// The image's file no longer exists, and no debug file with the
        /// report's build-id exists.
        case missing
        /// No symbolizer (`llvm-symbolizer` or `addr2line`) was found or
        /// any that was found failed to run.
        case noSymbolizer
    }

    /// Index of the image in the report's `images`, nil for report-wide
    /// warnings.
    public var imageIndex: Int?
    /// The image's path as recorded in the report.
    public var imagePath: String?
    /// What went wrong.
    public var reason: Reason

    /// Creates a warning.
    public init(imageIndex: Int?, imagePath: String?, reason: Reason) {
        self.imageIndex = imageIndex
        self.imagePath = imagePath
        self.reason = reason
    }

    public var description: String {
        let path = imagePath ?? "?"
        switch reason {
        case .buildIDMismatch(let expected, let found):
            return "build-id mismatch: \(path) changed since the crash (report has \(expected), file has \(found ?? "no build-id")); its frames are left unsymbolicated"
        case .missing:
            return "image missing: \(path) no longer exists and no debug file has its build-id; its frames are left unsymbolicated"
        case .noSymbolizer:
            return "no symbolizer: install llvm-symbolizer or addr2line (binutils), or set FAULTLINE_SYMBOLIZER; frames are left unsymbolicated"
        }
    }

    /// A short tag for a frame line in the formatted report.
    public var frameNote: String {
        switch reason {
        case .buildIDMismatch: return "build-id mismatch"
        case .missing: return "image missing"
        case .noSymbolizer: return "no symbolizer"
        }
    }
}
