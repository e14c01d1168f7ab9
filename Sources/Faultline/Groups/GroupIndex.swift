import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The index `faultline report groups` keeps in each folder it is given:
/// per folder under it (by relative path), the folder's identity when it
/// was listed (`FolderKey`: inode, mtime, ctime, size), its subfolders, and
/// per report file its size, mtime and the `GroupRecord`s it gave.
///
/// A folder whose key is unchanged is taken from the index without
/// listing it or stat'ing its files (a folder's mtime changes whenever a
/// file in it is created, removed or renamed, which is how Faultline
/// writes every report); a folder whose key changed is listed again and
/// only its files whose size or mtime changed are read. The reports
/// always win: a file rewritten in place (same name, no rename) is not
/// seen until its folder changes (docs/export.md).
///
/// Kept as `<folder>/.faultline-groups/index` (hidden, so report readers
/// skip it), in a folder of its own so that writing it (atomically, by
/// rename) changes that folder and not the one it describes: with the
/// file beside the reports, every run changed the top folder's key, which
/// had it listed, and the whole index rewritten, on every warm run.
/// Length-prefixed binary with one table of
/// strings: loading 100 000 entries is a few tens of milliseconds where
/// the old text index took seconds. An index that does not parse, or was
/// made under other signature rules, is ignored whole.
public struct GroupIndex {
    /// What identifies a folder's listing: any file created, removed or
    /// renamed in it changes mtime and ctime; chmod changes ctime.
    public struct FolderKey: Equatable, Sendable {
        /// Inode number.
        public var inode: UInt64
        /// mtime in nanoseconds.
        public var mtimeNs: Int64
        /// ctime in nanoseconds.
        public var ctimeNs: Int64
        /// st_size of the directory.
        public var size: Int64
        /// A key no folder has: the folder is listed again next time.
        public static let unverified = FolderKey(inode: 0, mtimeNs: -1, ctimeNs: -1, size: -1)
    }

    /// What the index knows of one report file.
    public struct FileEntry: Equatable, Sendable {
        /// Its name in its folder.
        public var name: String
        /// Size when read.
        public var size: Int64
        /// mtime (ns) when read.
        public var mtimeNs: Int64
        /// The records it gave.
        public var records: [GroupRecord]
    }

    /// What the index knows of one folder.
    public struct Folder: Equatable, Sendable {
        /// Its key when listed (`unverified`: list it again next time).
        public var key: FolderKey
        /// Names of its subfolders.
        public var subfolders: [String]
        /// Its report files.
        public var files: [FileEntry]
    }

    /// The hidden folder the index is kept in, inside the folder it describes.
    public static let folderName = ".faultline-groups"
    /// The index file's name inside `folderName`.
    public static let fileName = "index"
    /// Where indexes were kept before (beside the reports): removed when found.
    static let oldFileName = ".faultline-groups-index"

    /// The index file of `directory`.
    public static func path(in directory: String) -> String {
        ((directory as NSString).appendingPathComponent(folderName) as NSString).appendingPathComponent(fileName)
    }

    /// Makes the index's folder (and removes an index of the old place)
    /// before `directory` is scanned, so that the key the scan records
    /// already includes both changes. Quiet when it cannot: `save` says so.
    public static func prepare(directory: String) {
        mkdir((directory as NSString).appendingPathComponent(folderName), 0o700)
        unlink((directory as NSString).appendingPathComponent(oldFileName))
    }
    /// Format (3: binary, per folder) and the signature rules' version.
    static let header = "faultline-groups-index 3 rules-\(ReportSignature.hash(DefaultSignatureRules.text))"

    /// The folder given to `report groups`.
    public var directory: String
    /// By path relative to `directory` ("" for itself).
    public var folders: [String: Folder] = [:]

    /// An empty index of `directory`.
    public init(directory: String) {
        self.directory = directory
    }

    /// The folder's index, empty when there is none (or it is unusable).
    public static func load(directory: String) -> GroupIndex {
        let path = Self.path(in: directory)
        guard let data = FileManager.default.contents(atPath: path) else { return GroupIndex(directory: directory) }
        let folders = data.withUnsafeBytes { raw -> [String: Folder]? in
            var r = IndexReader(bytes: raw)
            return r.folders()
        }
        var index = GroupIndex(directory: directory)
        index.folders = folders ?? [:]
        return index
    }

    /// The index as bytes.
    func encoded() -> [UInt8] {
        var w = IndexWriter()
        w.string(Self.header)
        // Strings first (each once), then the folders naming them by number.
        let order = folders.keys.sorted()
        for rel in order {
            let f = folders[rel]!
            _ = w.intern(rel)
            for s in f.subfolders { _ = w.intern(s) }
            for file in f.files {
                _ = w.intern(file.name)
                for r in file.records {
                    for s in [r.kind, r.process, r.machine, r.phase ?? "", r.signatureID, r.signatureText] { _ = w.intern(s) }
                }
            }
        }
        w.u32(UInt32(w.table.count))
        for s in w.table { w.string(s) }
        w.u32(UInt32(order.count))
        for rel in order {
            let f = folders[rel]!
            w.ref(rel)
            w.u64(f.key.inode); w.i64(f.key.mtimeNs); w.i64(f.key.ctimeNs); w.i64(f.key.size)
            w.u32(UInt32(f.subfolders.count))
            for s in f.subfolders { w.ref(s) }
            w.u32(UInt32(f.files.count))
            for file in f.files {
                w.ref(file.name); w.i64(file.size); w.i64(file.mtimeNs)
                w.u32(UInt32(file.records.count))
                for r in file.records {
                    w.ref(r.kind); w.u64(r.timeUnixMs); w.ref(r.process); w.ref(r.machine)
                    w.bytes.append(r.phase == nil ? 0 : 1); w.ref(r.phase ?? "")
                    w.ref(r.signatureID); w.ref(r.signatureText)
                }
            }
        }
        return w.bytes
    }

    /// Writes the index atomically; returns a one-line warning when it
    /// cannot (a read-only folder: grouping still worked, it will just read
    /// every report again next time).
    public func save() -> String? {
        let path = Self.path(in: directory)
        let tmp = path + ".tmp"
        let failed = { "could not write the index \(path): \(String(cString: strerror(errno))); the next run reads every report again" }
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return failed() }
        let bytes = encoded()
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard n == bytes.count, rename(tmp, path) == 0 else {
            let message = failed()
            unlink(tmp)
            return message
        }
        return nil
    }
}

/// Little-endian, length-prefixed: strings are `u32 length + UTF-8`, and
/// after the string table every string is a `u32` number into it.
private struct IndexWriter {
    var bytes: [UInt8] = []
    var table: [String] = []
    var numbers: [String: UInt32] = [:]

    mutating func intern(_ s: String) -> UInt32 {
        if let n = numbers[s] { return n }
        let n = UInt32(table.count)
        numbers[s] = n
        table.append(s)
        return n
    }

    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    mutating func string(_ s: String) {
        let utf8 = Array(s.utf8)
        u32(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }
    mutating func ref(_ s: String) { u32(numbers[s]!) }
}

/// Reads what `IndexWriter` wrote; nil at the first thing out of place.
private struct IndexReader {
    let bytes: UnsafeRawBufferPointer
    var at = 0
    var table: [String] = []

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func u32() -> UInt32? {
        guard at + 4 <= bytes.count else { return nil }
        defer { at += 4 }
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }

    mutating func u64() -> UInt64? {
        guard at + 8 <= bytes.count else { return nil }
        defer { at += 8 }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }

    mutating func i64() -> Int64? { u64().map { Int64(bitPattern: $0) } }

    mutating func string() -> String? {
        guard let n = u32(), at + Int(n) <= bytes.count else { return nil }
        defer { at += Int(n) }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<at + Int(n)]), as: UTF8.self)
    }

    mutating func ref() -> String? {
        guard let n = u32(), Int(n) < table.count else { return nil }
        return table[Int(n)]
    }

    mutating func folders() -> [String: GroupIndex.Folder]? {
        guard string() == GroupIndex.header, let count = u32(), Int(count) <= bytes.count else { return nil }
        table.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let s = string() else { return nil }
            table.append(s)
        }
        guard let nFolders = u32(), Int(nFolders) <= bytes.count else { return nil }
        var out: [String: GroupIndex.Folder] = [:]
        out.reserveCapacity(Int(nFolders))
        for _ in 0..<nFolders {
            guard let rel = ref(), let inode = u64(), let mtime = i64(), let ctime = i64(), let size = i64(),
                  let nSub = u32(), Int(nSub) <= bytes.count else { return nil }
            var subs: [String] = []
            for _ in 0..<nSub {
                guard let s = ref() else { return nil }
                subs.append(s)
            }
            guard let nFiles = u32(), Int(nFiles) <= bytes.count else { return nil }
            var files: [GroupIndex.FileEntry] = []
            files.reserveCapacity(Int(nFiles))
            for _ in 0..<nFiles {
                guard let name = ref(), let fsize = i64(), let fmtime = i64(), let nRec = u32(), Int(nRec) <= bytes.count else { return nil }
                var records: [GroupRecord] = []
                records.reserveCapacity(Int(nRec))
                for _ in 0..<nRec {
                    guard let kind = ref(), let time = u64(), let process = ref(), let machine = ref(), at < bytes.count else { return nil }
                    let hasPhase = bytes[at] == 1
                    at += 1
                    guard let phase = ref(), let id = ref(), let text = ref() else { return nil }
                    records.append(GroupRecord(kind: kind, timeUnixMs: time, process: process, machine: machine,
                                               phase: hasPhase ? phase : nil, signatureID: id, signatureText: text))
                }
                files.append(GroupIndex.FileEntry(name: name, size: fsize, mtimeNs: fmtime, records: records))
            }
            out[rel] = GroupIndex.Folder(key: GroupIndex.FolderKey(inode: inode, mtimeNs: mtime, ctimeNs: ctime, size: size),
                                         subfolders: subs, files: files)
        }
        guard at == bytes.count else { return nil }
        return out
    }
}
