import CFaultlineSuppressions
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A suppressions file as `faultline exec --suppressions FILE` checks it
/// before the program starts, with the parser the malloc shim reads it
/// with (suppressions_parse.h; docs/malloc-shim.md, "Suppressions"), so
/// that both accept the same lines and name a bad one in the same words.
/// The shim runs on past a bad line; `exec` refuses the file instead, so
/// that a typo fails the run before it starts rather than one line in its
/// stderr.
public enum SuppressionsFile {
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
        let absolute = path.hasPrefix("/") ? path : (currentDirectory as NSString).appendingPathComponent(path)
        let data: Data
        do throws(RegularFile.ReadError) { data = try RegularFile.read(absolute, limit: Int(FL_SUPP_FILE_MAX)) } catch {
            let why: String
            switch error {
            case .system(ENOENT): why = "no such file; give the path of a suppressions file"
            case .system(EACCES): why = "permission denied; make it readable, or give another file"
            case .system(let e): why = "cannot be read (\(String(cString: strerror(e)))); give the path of a suppressions file"
            case .directory: why = "is a directory; give the path of a suppressions file"
            case .notRegular: why = "is not a regular file (a FIFO or device); give the path of a suppressions file"
            case .tooLarge(let size): why = "is \(size) bytes, over the 256 KiB the malloc shim reads; split it, or drop what is not needed"
            }
            throw CheckError(description: "--suppressions \(OneLine.escaped(path)): \(why) (docs/malloc-shim.md, \"Suppressions\")")
        }
        if let problem = firstProblem(in: data, named: path) { throw CheckError(description: problem) }
        return absolute
    }

    /// The parser's line for the first bad line of `data`, then what to do;
    /// nil when every line is a suppression, a comment or blank.
    private static func firstProblem(in data: Data, named name: String) -> String? {
        data.withUnsafeBytes { bytes -> String? in
            var reader = fl_supp_reader()
            reader.text = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
            reader.len = bytes.count
            var line = fl_supp_line()
            var verdict = fl_supp_next(&reader, &line)
            while verdict == FL_SUPP_ENTRY { verdict = fl_supp_next(&reader, &line) }
            guard verdict != FL_SUPP_END else { return nil }
            var text = [CChar](repeating: 0, count: Int(FL_SUPP_DESCRIBE_MAX))
            fl_supp_describe(&text, text.count, name, verdict, &line)
            return text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } + "; " + String(cString: fl_supp_advice(verdict))
        }
    }
}
