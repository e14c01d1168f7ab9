import Foundation

/// Reads report files: one directory at a time, bad files reported one line
/// each and skipped, never a crash.
public enum ReportStore {
    /// The newest schema version this build reads.
    public static let supportedSchemaVersion = 1

    /// A file in a report directory and what reading it gave.
    public struct Entry: Sendable {
        /// Full path of the file.
        public let path: String
        /// The report, or why it is not one.
        public let result: Result<Report, ReportLoadError>
    }

    /// Reads one report file.
    public static func load(path: String) throws(ReportLoadError) -> Report {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ReportLoadError(path: path, reason: .unreadable((error as NSError).localizedDescription))
        }
        return try decode(data, path: path)
    }

    /// Decodes report bytes; `path` is only used in errors.
    public static func decode(_ data: Data, path: String) throws(ReportLoadError) -> Report {
        let trimmed = data.filter { ![0x20, 0x0a, 0x0d, 0x09].contains($0) }
        if trimmed.isEmpty { throw ReportLoadError(path: path, reason: .empty) }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            // A report that starts like one but does not close was cut short.
            if trimmed.first == UInt8(ascii: "{") && trimmed.last != UInt8(ascii: "}") {
                throw ReportLoadError(path: path, reason: .truncated)
            }
            throw ReportLoadError(path: path, reason: .notJSON("does not parse"))
        }
        guard let dict = object as? [String: Any], dict["schema"] as? String == "faultline.report" else {
            throw ReportLoadError(path: path, reason: .foreign)
        }
        if let v = dict["schema_version"] as? Int, v > supportedSchemaVersion {
            throw ReportLoadError(path: path, reason: .unsupportedVersion(v))
        }
        do {
            return try JSONDecoderFactory.reports().decode(Report.self, from: data)
        } catch let DecodingError.keyNotFound(key, ctx) {
            throw ReportLoadError(path: path, reason: .invalid("missing \(describe(ctx.codingPath + [key]))"))
        } catch let DecodingError.typeMismatch(_, ctx) {
            throw ReportLoadError(path: path, reason: .invalid("wrong type at \(describe(ctx.codingPath))"))
        } catch let DecodingError.dataCorrupted(ctx) {
            throw ReportLoadError(path: path, reason: .invalid("\(ctx.debugDescription) at \(describe(ctx.codingPath))"))
        } catch {
            throw ReportLoadError(path: path, reason: .invalid("\(error)"))
        }
    }

    /// Every `*.json` file in `directory` (hidden temporary files skipped),
    /// oldest first. Throws only when the directory itself cannot be read.
    public static func list(directory: String) throws -> [Entry] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
            .sorted()
            .map { name in
                let path = (directory as NSString).appendingPathComponent(name)
                do throws(ReportLoadError) {
                    return Entry(path: path, result: .success(try load(path: path)))
                } catch {
                    return Entry(path: path, result: .failure(error))
                }
            }
            .sorted { a, b in
                switch (a.result, b.result) {
                case (.success(let x), .success(let y)): return x.timeUnixMs < y.timeUnixMs
                default: return a.path < b.path
                }
            }
    }

    private static func describe(_ path: [CodingKey]) -> String {
        path.isEmpty ? "top level" : path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
