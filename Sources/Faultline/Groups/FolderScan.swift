import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One walk of a folder tree against its old `GroupIndex`: a folder whose
/// key (inode, mtime, ctime, size) is what the index says is taken whole
/// from it (its subfolders are still stat'ed and visited); any other is
/// listed, and of its report files only those whose size or mtime changed
/// are left to read (`pending`). A warm run over 100 000 reports in 100
/// folders is then ~100 stat calls instead of 100 000.
struct FolderScan {
    /// A file to read: its folder (relative), its place in that folder's
    /// `files`, and its path.
    struct Pending {
        var folder: String
        var file: Int
        var path: String
    }

    /// The old index's folders.
    let old: [String: GroupIndex.Folder]
    /// Folders whose mtime or ctime is at or after this (ns) are stored
    /// `unverified`: a file created in the same clock tick after the
    /// listing would not move the folder's mtime.
    let recentNs: Int64
    /// The folders as they are now (records of `pending` files empty).
    var new: [String: GroupIndex.Folder] = [:]
    /// Files to read.
    var pending: [Pending] = []
    /// Folders that were listed (not taken from the index).
    var listed: [String] = []
    /// Report files the index gave.
    var indexed = 0

    init(old: [String: GroupIndex.Folder], recentNs: Int64) {
        self.old = old
        self.recentNs = recentNs
    }

    /// Walks `root`. Throws only when `root` itself cannot be read; a
    /// subfolder that cannot is passed over.
    mutating func run(root: String) throws(ReportTree.ReadError) {
        var st = stat()
        guard stat(root, &st) == 0 else { throw ReportTree.ReadError(path: root, reason: String(cString: strerror(errno))) }
        guard (st.st_mode & S_IFMT) == S_IFDIR else { throw ReportTree.ReadError(path: root, reason: String(cString: strerror(ENOTDIR))) }
        if !visit(relative: "", path: root, st: st) {
            throw ReportTree.ReadError(path: root, reason: String(cString: strerror(errno)))
        }
    }

    static func join(_ path: String, _ name: String) -> String {
        path.hasSuffix("/") ? path + name : path + "/" + name
    }

    private static func key(_ st: stat) -> GroupIndex.FolderKey {
        GroupIndex.FolderKey(inode: UInt64(st.st_ino),
                             mtimeNs: ReportTree.nanoseconds(st.st_mtim),
                             ctimeNs: ReportTree.nanoseconds(st.st_ctim),
                             size: Int64(st.st_size))
    }

    /// False when the folder could not be opened.
    private mutating func visit(relative: String, path: String, st: stat) -> Bool {
        let key = Self.key(st)
        if let known = old[relative], known.key == key {
            new[relative] = known
            indexed += known.files.count
            for name in known.subfolders { visitChild(name, of: relative, path: path) }
            return true
        }
        guard let dir = opendir(path) else { return false }
        listed.append(relative)
        let before = Dictionary(old[relative]?.files.map { ($0.name, $0) } ?? [], uniquingKeysWith: { a, _ in a })
        var subfolders: [String] = []
        var files: [GroupIndex.FileEntry] = []
        let firstPending = pending.count
        ReportTree.eachEntry(dir) { name, cst in
            if (cst.st_mode & S_IFMT) == S_IFDIR {
                subfolders.append(name)
            } else if (cst.st_mode & S_IFMT) == S_IFREG, name.hasSuffix(".json") {
                let mtime = ReportTree.nanoseconds(cst.st_mtim)
                // A file changed in the last tick may change again unseen: not kept as known.
                let known = mtime < recentNs ? mtime : -1
                if let e = before[name], e.size == Int64(cst.st_size), e.mtimeNs == mtime, mtime >= 0 {
                    files.append(e)
                    indexed += 1
                } else {
                    files.append(GroupIndex.FileEntry(name: name, size: Int64(cst.st_size), mtimeNs: known, records: []))
                    pending.append(Pending(folder: relative, file: -1, path: Self.join(path, name)))
                }
            }
        }
        closedir(dir)
        // Sorted, so that the index and the examples do not depend on readdir order.
        let order = files.indices.sorted { files[$0].name < files[$1].name }
        files = order.map { files[$0] }
        var place: [String: Int] = [:]
        for (k, f) in files.enumerated() { place[f.name] = k }
        for k in firstPending..<pending.count {
            pending[k].file = place[(pending[k].path as NSString).lastPathComponent]!
        }
        subfolders.sort()
        let recent = key.mtimeNs >= recentNs || key.ctimeNs >= recentNs
        new[relative] = GroupIndex.Folder(key: recent ? .unverified : key, subfolders: subfolders, files: files)
        for name in subfolders { visitChild(name, of: relative, path: path) }
        return true
    }

    private mutating func visitChild(_ name: String, of relative: String, path: String) {
        let childPath = Self.join(path, name)
        let childRelative = relative.isEmpty ? name : relative + "/" + name
        var cst = stat()
        guard stat(childPath, &cst) == 0, (cst.st_mode & S_IFMT) == S_IFDIR else { return }
        _ = visit(relative: childRelative, path: childPath, st: cst)
    }
}
