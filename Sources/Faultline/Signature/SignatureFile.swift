import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Keeps a report's signature in its file, so that the signature computed
/// where the program ran (every image there to symbolicate) travels with
/// the report to machines that lack them (`faultline report groups` over
/// many machines' artifacts, Sentry). The rest of the file stays
/// byte-for-byte what the agent wrote; `schema_version` becomes 2.
public enum SignatureFile {
    /// Why a signature was not added.
    public struct WriteError: Error, CustomStringConvertible {
        /// The report file.
        public var path: String
        /// What went wrong.
        public var reason: String
        public var description: String { "could not add the signature to \(path): \(reason); the report is unchanged" }
    }

    /// Adds `signature` to the report file at `path` (atomically: a hidden
    /// temporary file beside it, mode 0600, renamed over it). A file that
    /// already has a `signature` key is left alone.
    public static func add(_ signature: ReportSignature, toReportAt path: String) throws(WriteError) {
        let data: Data
        do { data = try RegularFile.read(path, limit: ReportStore.maxReportBytes) }
        catch { throw WriteError(path: path, reason: "\(error)") }
        var bytes = [UInt8](data)
        while let last = bytes.last, last == 0x0a || last == 0x20 || last == 0x0d || last == 0x09 { bytes.removeLast() }
        guard bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else {
            throw WriteError(path: path, reason: "not one JSON object")
        }
        guard (try? JSONSerialization.jsonObject(with: data)) is [String: Any] else {
            throw WriteError(path: path, reason: "not valid JSON")
        }
        if let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any], o["signature"] != nil { return }
        let encoded: Data
        do { encoded = try JSONEncoderFactory.plain().encode(signature) }
        catch { throw WriteError(path: path, reason: "\(error)") }
        var text = String(decoding: bytes.dropLast(), as: UTF8.self)
        for old in [#""schema_version":1,"#, #""schema_version": 1,"#] {
            if let r = text.range(of: old) {
                text.replaceSubrange(r, with: old.replacingOccurrences(of: "1", with: "2"))
                break
            }
        }
        let out = Data((text + #","signature":"# + String(decoding: encoded, as: UTF8.self) + "}\n").utf8)
        let dir = (path as NSString).deletingLastPathComponent
        let tmp = (dir.isEmpty ? "." : dir) + "/." + (path as NSString).lastPathComponent + ".signature.tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw WriteError(path: path, reason: String(cString: strerror(errno))) }
        let written = out.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == out.count, synced, rename(tmp, path) == 0 else {
            let why = String(cString: strerror(errno))
            unlink(tmp)
            throw WriteError(path: path, reason: why)
        }
    }
}
