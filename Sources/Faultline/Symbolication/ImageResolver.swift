import Foundation

/// Decides which file on disk to symbolicate each report image against:
/// the file at the image's path when its GNU build-id matches the report's,
/// else a separate debug file found by build-id
/// (`<debug dir>/.build-id/xx/rest.debug`), else none, with a warning.
struct ImageResolver {
    /// Directories searched for `.build-id/xx/rest.debug` files.
    var debugFileDirectories: [String]

    /// Where an image's frames are looked up.
    enum Resolution: Equatable {
        /// Symbolicate against this file.
        case file(String)
        /// Do not symbolicate, and say why.
        case skip(SymbolicationWarning)
        /// Do not symbolicate, silently (`[vdso]` and other pseudo images).
        case ignore
    }

    func resolve(_ image: Report.Image, index: Int) -> Resolution {
        var path = image.path
        if path.isEmpty || path.hasPrefix("[") { return .ignore }
        // /proc/self/maps marks files replaced while mapped.
        if path.hasSuffix(" (deleted)") { path = String(path.dropLast(" (deleted)".count)) }
        let expected = image.buildId.map { $0.lowercased() }.flatMap { $0.isEmpty ? nil : $0 }
        let exists = FileManager.default.fileExists(atPath: path)
        guard let expected else {
            // Nothing to verify against: trust the path.
            return exists ? .file(path) : .skip(SymbolicationWarning(imageIndex: index, imagePath: image.path, reason: .missing))
        }
        let found = exists ? ELFBuildID.read(path: path) : nil
        if found == expected { return .file(path) }
        if let debug = debugFile(for: expected) { return .file(debug) }
        let reason: SymbolicationWarning.Reason = exists ? .buildIDMismatch(expected: expected, found: found) : .missing
        return .skip(SymbolicationWarning(imageIndex: index, imagePath: image.path, reason: reason))
    }

    /// The first debug file whose own build-id is `buildID`.
    func debugFile(for buildID: String) -> String? {
        guard buildID.count > 2, buildID.allSatisfy(\.isHexDigit) else { return nil }
        let head = buildID.prefix(2), rest = buildID.dropFirst(2)
        for dir in debugFileDirectories {
            let candidate = "\(dir)/.build-id/\(head)/\(rest).debug"
            if ELFBuildID.read(path: candidate) == buildID { return candidate }
        }
        return nil
    }
}
