import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A folder's index for `faultline report groups`: for each report file
/// (by path relative to the folder), its size and modification time when
/// it was read and the `GroupRecord`s it gave. A file whose size or mtime
/// differs is read again, one the index does not name is read, and one
/// that is gone is dropped: the reports always win. Kept in
/// `<folder>/.faultline-groups-index` (hidden, so report readers skip it),
/// written atomically; an index that does not parse, or was made under
/// other signature rules, is ignored whole.
public struct GroupIndex {
    /// What the index knows of one file.
    public struct Entry: Equatable, Sendable {
        /// Size when read.
        public var size: Int64
        /// mtime (ns) when read.
        public var mtimeNs: Int64
        /// The records it gave.
        public var records: [GroupRecord]
    }

    /// The index file's name inside the folder.
    public static let fileName = ".faultline-groups-index"
    /// First line: format and the signature rules' version.
    static let header = "faultline-groups-index 2 rules-\(ReportSignature.hash(DefaultSignatureRules.text))"

    /// The folder.
    public var directory: String
    /// By relative path.
    public var entries: [String: Entry] = [:]

    /// The folder's index, empty when there is none (or it is unusable).
    public static func load(directory: String) -> GroupIndex {
        var index = GroupIndex(directory: directory)
        let path = (directory as NSString).appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: path) else { return index }
        // Bytes, not Data: Data's subscript is a slow path per byte.
        let bytes = [UInt8](data)
        let lines = bytes.split(separator: 0x0a, omittingEmptySubsequences: true)
        guard let first = lines.first, String(decoding: first, as: UTF8.self) == header else { return index }
        var texts: [String: String] = [:]
        var current: (String, Entry)?
        for line in lines.dropFirst() {
            let fields = line.split(separator: 0x09, omittingEmptySubsequences: false).map { unescape(String(decoding: $0, as: UTF8.self)) }
            if fields.first == "F", fields.count == 4, let size = Int64(fields[2]), let mtime = Int64(fields[3]) {
                if let (k, e) = current { index.entries[k] = e }
                current = (fields[1], Entry(size: size, mtimeNs: mtime, records: []))
            } else if fields.first == "R", fields.count == 7, let time = UInt64(fields[2]), current != nil, let text = texts[fields[6]] {
                let phase = fields[5].hasPrefix("=") ? String(fields[5].dropFirst()) : nil
                current!.1.records.append(GroupRecord(kind: fields[1], timeUnixMs: time, process: fields[3], machine: fields[4],
                                                      phase: phase, signatureID: fields[6], signatureText: text))
            } else if fields.first == "S", fields.count == 3 {
                texts[fields[1]] = fields[2]
            } else {
                return GroupIndex(directory: directory)  // damaged: read every report again
            }
        }
        if let (k, e) = current { index.entries[k] = e }
        return index
    }

    /// Writes the index atomically; returns a one-line warning when it
    /// cannot (a read-only folder: grouping still worked, it will just read
    /// every report again next time).
    public func save() -> String? {
        // Each signature's text once (`S ID TEXT`), then each file (`F`)
        // and its records (`R`), which name their signature by id.
        var text = Self.header + "\n"
        var texts: [String: String] = [:]
        for e in entries.values { for r in e.records { texts[r.signatureID] = r.signatureText } }
        for (id, t) in texts.sorted(by: { $0.key < $1.key }) { text += "S\t\(Self.escape(id))\t\(Self.escape(t))\n" }
        for (path, e) in entries.sorted(by: { $0.key < $1.key }) {
            text += "F\t\(Self.escape(path))\t\(e.size)\t\(e.mtimeNs)\n"
            for r in e.records {
                let fields = [r.kind, String(r.timeUnixMs), r.process, r.machine, r.phase.map { "=" + $0 } ?? "", r.signatureID]
                text += "R\t" + fields.map(Self.escape).joined(separator: "\t") + "\n"
            }
        }
        let path = (directory as NSString).appendingPathComponent(Self.fileName)
        let tmp = path + ".tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return "could not write the index \(path): \(String(cString: strerror(errno))); the next run reads every report again" }
        let bytes = Array(text.utf8)
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard n == bytes.count, rename(tmp, path) == 0 else {
            unlink(tmp)
            return "could not write the index \(path): \(String(cString: strerror(errno))); the next run reads every report again"
        }
        return nil
    }

    static func escape(_ s: String) -> String {
        guard s.contains(where: { $0 == "\\" || $0 == "\t" || $0 == "\n" || $0 == "\r" }) else { return s }
        return s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\t", with: "\\t")
            .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
    }

    static func unescape(_ s: String) -> String {
        guard s.utf8.contains(UInt8(ascii: "\\")) else { return s }
        var out = "", esc = false
        for c in s {
            if esc {
                out.append(c == "t" ? "\t" : c == "n" ? "\n" : c == "r" ? "\r" : c)
                esc = false
            } else if c == "\\" { esc = true } else { out.append(c) }
        }
        return out
    }
}
