import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A suppressions file as `faultline exec --suppressions FILE` checks it
/// before the program starts, by the rules the malloc shim reads it with
/// (shim_suppress.c; docs/malloc-shim.md, "Suppressions"): one
/// `KIND:PATTERN` a line, `#` comment lines and blank lines, at most 256
/// suppressions of under 256 bytes each in at most 256 KiB. The shim runs
/// on past a bad line; `exec` refuses the file instead, so that a typo
/// fails the run before it starts rather than one line in its stderr.
public enum SuppressionsFile {
    /// The error kinds a suppression may name, as the shim knows them.
    public static let kinds = ["leak", "double_free", "invalid_free", "alloc_dealloc_mismatch", "new_delete_type_mismatch", "write_after_free"]
    /// Most suppressions, pattern bytes (exclusive) and file bytes the shim reads.
    public static let maxSuppressions = 256, maxPatternBytes = 256, maxFileBytes = 256 << 10

    /// Why a file cannot be used; the description is one line naming the
    /// file (and line) and what to do.
    public struct CheckError: Error, CustomStringConvertible, Sendable {
        /// The one line, without the `faultline: ` prefix.
        public let description: String
    }

    /// Checks the file at `path` (as the user gave it) and returns its
    /// absolute path, resolved against `currentDirectory`, for the program,
    /// which may change directory before the shim reads it.
    public static func check(_ path: String, currentDirectory: String) throws(CheckError) -> String {
        let named = OneLine.escaped(path)
        let absolute = path.hasPrefix("/") ? path : (currentDirectory as NSString).appendingPathComponent(path)
        let data: Data
        do throws(RegularFile.ReadError) { data = try RegularFile.read(absolute, limit: maxFileBytes) } catch {
            let why: String
            switch error {
            case .system(ENOENT): why = "no such file; give the path of a suppressions file"
            case .system(EACCES): why = "permission denied; make it readable, or give another file"
            case .system(let e): why = "cannot be read (\(String(cString: strerror(e)))); give the path of a suppressions file"
            case .directory: why = "is a directory; give the path of a suppressions file"
            case .notRegular: why = "is not a regular file (a FIFO or device); give the path of a suppressions file"
            case .tooLarge(let size): why = "is \(size) bytes, over the 256 KiB the malloc shim reads; split it, or drop what is not needed"
            }
            throw CheckError(description: "--suppressions \(named): \(why) (docs/malloc-shim.md, \"Suppressions\")")
        }
        var count = 0
        for (index, raw) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: CharacterSet(charactersIn: " \t\r"))
            if line.isEmpty || line.hasPrefix("#") { continue }
            let at = "\(named):\(index + 1)"
            guard let kind = kinds.first(where: { line.hasPrefix($0 + ":") && line.utf8.count > $0.utf8.count + 1 }) else {
                throw CheckError(description: "\(at): not a suppression (expected KIND:FUNCTION_OR_LIBRARY, KIND one of \(kinds.joined(separator: ", "))): \"\(OneLine.escaped(line))\"; fix or delete the line")
            }
            guard line.utf8.count - kind.utf8.count - 1 < maxPatternBytes else {
                throw CheckError(description: "\(at): pattern longer than 255 bytes; shorten it (a substring of the function name or library path is enough)")
            }
            count += 1
            guard count <= maxSuppressions else {
                throw CheckError(description: "\(at): more than 256 suppressions; drop or merge some (one pattern may match many functions)")
            }
        }
        return absolute
    }
}
