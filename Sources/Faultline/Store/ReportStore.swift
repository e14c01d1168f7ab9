import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads report files: one directory at a time, bad files reported one line
/// each and skipped, never a crash.
public enum ReportStore {
    /// The newest schema version this build reads.
    public static let supportedSchemaVersion = 2

    /// Largest file read as a report. The agent's buffer is 8 MiB; anything
    /// far bigger is not one of ours and is refused before it is read.
    public static let maxReportBytes = 64 << 20

    /// A file in a report directory and what reading it gave.
    public struct Entry: Sendable {
        /// Full path of the file.
        public let path: String
        /// The report, or why it is not one.
        public let result: Result<Report, ReportLoadError>

        /// Creates an entry.
        public init(path: String, result: Result<Report, ReportLoadError>) {
            self.path = path
            self.result = result
        }

        /// The report, nil for a bad file.
        public var report: Report? { try? result.get() }
    }

    /// Reads one report file.
    public static func load(path: String) throws(ReportLoadError) -> Report {
        try decode(try readFile(path), path: path)
    }

    /// Decodes report bytes; `path` is only used in errors.
    public static func decode(_ data: Data, path: String) throws(ReportLoadError) -> Report {
        // The first byte that is not JSON whitespace (nil: nothing else). A
        // copy of the file without its whitespace, made with a closure
        // that built an array per byte, was 45 % of `report show` on a
        // 4 MiB leak report.
        let firstByte = data.first { $0 != 0x20 && $0 != 0x0a && $0 != 0x0d && $0 != 0x09 }
        guard let firstByte else { throw ReportLoadError(path: path, reason: .empty) }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            // A report that starts like one but does not close was cut short.
            if firstByte == UInt8(ascii: "{") && JSONShape.isUnterminatedPrefix(data) {
                throw ReportLoadError(path: path, reason: .truncated)
            }
            throw ReportLoadError(path: path, reason: .notJSON(JSONShape.describeParseError(error, in: data)))
        }
        guard let dict = object as? [String: Any], dict["schema"] as? String == "faultline.report" else {
            throw ReportLoadError(path: path, reason: .foreign)
        }
        // A positive whole number: -1, 0, 1.5 or "1" name no version.
        let version = dict["schema_version"]
        if let n = version as? NSNumber, let v = Int(exactly: n.doubleValue), v >= 1 {
            if v > supportedSchemaVersion { throw ReportLoadError(path: path, reason: .unsupportedVersion(v)) }
        } else if let version {
            throw ReportLoadError(path: path, reason: .invalid("schema_version \(version) is not a version (1 to \(supportedSchemaVersion))"))
        }
        do {
            return try JSONDecoderFactory.reports().decode(Report.self, from: data)
        } catch let DecodingError.keyNotFound(key, ctx) {
            throw ReportLoadError(path: path, reason: .invalid("missing \(describe(ctx.codingPath + [key]))"))
        } catch let DecodingError.typeMismatch(_, ctx) {
            throw ReportLoadError(path: path, reason: .invalid("wrong type at \(describe(ctx.codingPath))"))
        } catch let DecodingError.valueNotFound(_, ctx) {
            throw ReportLoadError(path: path, reason: .invalid("null at \(describe(ctx.codingPath))"))
        } catch let DecodingError.dataCorrupted(ctx) {
            // The decoder calls a number too big for its field "not valid
            // JSON" at the top level; JSONSerialization read it: name it.
            if ctx.codingPath.isEmpty, let (at, number) = JSONShape.firstOversizedNumber(in: object) {
                throw ReportLoadError(path: path, reason: .invalid("the number \(number) at \(at) is too big for a report field"))
            }
            throw ReportLoadError(path: path, reason: .invalid("\(ctx.debugDescription) at \(describe(ctx.codingPath))"))
        } catch {
            throw ReportLoadError(path: path, reason: .invalid("\(error)"))
        }
    }

    /// Every `*.json` file in `directory` (hidden temporary files skipped):
    /// reports oldest first, then bad files by path. With
    /// `includingSubdirectories`, also the files one level down (where
    /// `faultline exec` puts each run). Throws only when `directory` itself
    /// cannot be read.
    public static func list(directory: String, includingSubdirectories: Bool = false) throws -> [Entry] {
        let fm = FileManager.default
        // Foundation words a directory it cannot open as "The operation could
        // not be completed. (NSCocoaErrorDomain error 256.)": the cause as an
        // errno instead (a missing directory keeps Foundation's own error).
        if let handle = opendir(directory) {
            closedir(handle)
        } else if errno != ENOENT {
            throw NSError(domain: NSCocoaErrorDomain, code: NSFileReadUnknownError,
                          userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(errno))])
        }
        var paths: [String] = []
        // Run directories that cannot be read: listed as bad entries, since
        // their reports would otherwise be missing without a word.
        var unreadable: [Entry] = []
        func collect(_ dir: String, descend: Bool) throws {
            for name in try fm.contentsOfDirectory(atPath: dir) where !name.hasPrefix(".") {
                let path = (dir as NSString).appendingPathComponent(name)
                var isDir: ObjCBool = false
                let exists = fm.fileExists(atPath: path, isDirectory: &isDir)
                if exists && isDir.boolValue {
                    guard descend else { continue }
                    if let handle = opendir(path) {
                        closedir(handle)
                        try? collect(path, descend: false)
                    } else {
                        let why = "\(explain(errno)); the reports in it are not listed"
                        unreadable.append(Entry(path: path, result: .failure(ReportLoadError(path: path, reason: .unreadable(why)))))
                    }
                } else if name.hasSuffix(".json") {
                    paths.append(path)
                }
            }
        }
        try collect(directory, descend: includingSubdirectories)
        let entries = load(paths: paths)
        guard !unreadable.isEmpty else { return entries }
        return entries.filter { $0.report != nil } + (entries.filter { $0.report == nil } + unreadable).sorted { $0.path < $1.path }
    }

    /// The files at `paths`, loaded: reports in the order they were started
    /// (`time_unix_ns`, else `time_unix_ms`; ties by path), then the files
    /// that did not load, by path.
    public static func load(paths: [String]) -> [Entry] {
        let entries = paths.map { path in
            do throws(ReportLoadError) {
                return Entry(path: path, result: .success(try load(path: path)))
            } catch {
                return Entry(path: path, result: .failure(error))
            }
        }
        let good = entries.filter { $0.report != nil }.sorted {
            let (a, b) = ($0.report!.orderingTimeNs, $1.report!.orderingTimeNs)
            return a != b ? a < b : $0.path < $1.path
        }
        let bad = entries.filter { $0.report == nil }.sorted { $0.path < $1.path }
        return good + bad
    }

    /// The report whose id is `id` or starts with it, searched in
    /// `directory` and one level below. File names carry the id
    /// (`<kind>-<time>-<pid>-<id>.json`), so only files whose name does not
    /// follow that pattern are read to learn their id.
    public static func find(id prefix: String, in directory: String) throws(ReportLookupError) -> Entry {
        let wanted = prefix.lowercased()
        guard !wanted.isEmpty, wanted.allSatisfy(\.isHexDigit) else {
            // A path that could not be looked at (`report show` tries ids
            // only for what is not an existing file): say why, not that it
            // is no id.
            var st = stat()
            if prefix.contains("/") || prefix.hasSuffix(".json"), stat(prefix, &st) != 0 {
                throw .unreadablePath(prefix, explain(errno))
            }
            throw .notAnID(prefix)
        }
        var names: [String] = []
        let fm = FileManager.default
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: directory, isDirectory: &isDir), isDir.boolValue else {
            throw .noDirectory(directory)
        }
        func collect(_ dir: String, descend: Bool) {
            for name in (try? fm.contentsOfDirectory(atPath: dir)) ?? [] where !name.hasPrefix(".") {
                let path = (dir as NSString).appendingPathComponent(name)
                var sub: ObjCBool = false
                if fm.fileExists(atPath: path, isDirectory: &sub), sub.boolValue {
                    if descend { collect(path, descend: false) }
                } else if name.hasSuffix(".json") {
                    names.append(path)
                }
            }
        }
        collect(directory, descend: true)
        var resolved: [(id: String, path: String, entry: Entry?)] = []
        for path in names.sorted() {
            if let id = idFromFileName(path) {
                if id.hasPrefix(wanted) { resolved.append((id, path, nil)) }
            } else if let report = try? load(path: path), report.id.lowercased().hasPrefix(wanted) {
                // A renamed file: its id is inside.
                resolved.append((report.id.lowercased(), path, Entry(path: path, result: .success(report))))
            }
        }
        // The same report copied twice is still one report.
        let distinct = Set(resolved.map(\.id))
        guard let first = resolved.first else { throw .notFound(prefix, directory) }
        guard distinct.count == 1 else {
            throw .ambiguous(prefix, resolved.map { ($0.id, $0.path) })
        }
        if let e = first.entry { return e }
        do throws(ReportLoadError) {
            return Entry(path: first.path, result: .success(try load(path: first.path)))
        } catch {
            return Entry(path: first.path, result: .failure(error))
        }
    }

    /// The id in a file name `<kind>-<time>-<pid>-<id>.json`, nil when the
    /// name does not end in `-` and 16 hex digits.
    public static func idFromFileName(_ path: String) -> String? {
        let name = (path as NSString).lastPathComponent
        guard name.hasSuffix(".json") else { return nil }
        let stem = name.dropLast(5)
        guard let dash = stem.lastIndex(of: "-") else { return nil }
        let id = stem[stem.index(after: dash)...]
        guard id.count == 16, id.allSatisfy(\.isHexDigit) else { return nil }
        return id.lowercased()
    }

    /// The file's bytes, or why it cannot be read (with what to do).
    static func readFile(_ path: String) throws(ReportLoadError) -> Data {
        do throws(RegularFile.ReadError) {
            return try RegularFile.read(path, limit: maxReportBytes)
        } catch {
            let why: String
            switch error {
            case .system(let code): why = explain(code)
            case .directory: why = "it is a directory; give a report file"
            case .notRegular: why = "not a regular file; give a report file"
            case .tooLarge(let size): why = "\(size) bytes is larger than any report (\(maxReportBytes >> 20) MiB); not a report"
            }
            throw ReportLoadError(path: path, reason: .unreadable(why))
        }
    }

    /// `errno` as text with what to do about it.
    private static func explain(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        switch code {
        case ENOENT: return "\(text); check the path"
        case EACCES, EPERM: return "\(text); check its permissions"
        case EISDIR: return "it is a directory; give a report file"
        default: return text
        }
    }

    /// A decoding path as the report's own keys: `crashed_thread.frames[0].pc`
    /// (the decoder gives the Swift names, `crashedThread.frames.[0].pc`).
    private static func describe(_ path: [CodingKey]) -> String {
        guard !path.isEmpty else { return "top level" }
        var text = ""
        for key in path {
            if let index = key.intValue { text += "[\(index)]"; continue }
            if !text.isEmpty { text += "." }
            for c in key.stringValue { text += c.isUppercase ? "_" + c.lowercased() : String(c) }
        }
        return text
    }
}
