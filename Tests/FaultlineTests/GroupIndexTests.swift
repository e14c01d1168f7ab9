@testable import Faultline
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The per-folder index of `report groups` (`GroupIndex`, `FolderScan`):
/// what it takes from the index and what it reads again, observed through
/// the grouper's counts (`read`, `indexed`, `listed`) and through reports
/// changed behind its back. The rule (docs/export.md, "The index"): a
/// folder whose inode, mtime, ctime and size are what the index says is
/// taken whole, without listing it; any other folder is listed, and of its
/// files those whose size or mtime changed, or that it does not name, are
/// read. Things changed in the last second are looked at again.
@Suite struct GroupIndexTests {
    /// A folder of hand-written reports, each written as faultline writes
    /// them (a temporary file renamed into place).
    struct History {
        let root: String

        init() throws { root = try makeTemporaryDirectory("faultline-group-index") }

        /// Writes report `name` in `folder` (relative, created) signed `signature`.
        func write(_ folder: String, _ name: String, signature: String, time: UInt64 = 1_795_303_341_130) throws {
            let dir = folder.isEmpty ? root : "\(root)/\(folder)"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try Data(Self.report(id: ReportSignature.hash(folder + "/" + name), signature: signature, time: time).utf8)
                .write(to: URL(fileURLWithPath: "\(dir)/\(name)"), options: .atomic)
        }

        /// A signed report: every field `report groups` takes.
        static func report(id: String, signature: String, time: UInt64) -> String {
            let sigID = ReportSignature.hash("crash SIGSEGV | \(signature)")
            return #"{"schema":"faultline.report","schema_version":2,"id":"\#(id)","kind":"crash","time":"2026-11-21T23:22:21.130Z","#
                + #""time_unix_ms":\#(time),"process":{"pid":7,"name":"victim"},"host":"ci-1","#
                + #""signature":{"id":"\#(sigID)","text":"crash SIGSEGV | \#(signature)","frames":["\#(signature)"],"symbolicated":true}}"#
        }

        /// `report groups` over the root, as a later run: `now` is moved
        /// past the one-second window, so what the test just wrote counts
        /// as settled (the window has a test of its own). `at`: run as at
        /// that instant instead.
        func group(at: Date? = nil) throws -> ReportGrouper.Outcome {
            var grouper = ReportGrouper(symbolicator: nil)
            let later = Date().addingTimeInterval(5)
            grouper.now = { at ?? later }
            return try grouper.group([root])
        }

        /// Report count per signature text, read with the full decoder
        /// from every file: what grouping must agree with.
        func truth() throws -> [String: Int] {
            var out: [String: Int] = [:]
            for f in try ReportTree.files(under: root) { out[try ReportStore.load(path: f.path).signature!.text, default: 0] += 1 }
            return out
        }

        func remove() { try? FileManager.default.removeItem(atPath: root) }
    }

    private func counts(_ o: ReportGrouper.Outcome) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: o.groups.map { ($0.text, $0.count) })
    }

    /// Two machines' folders with two runs each, three reports a run.
    private func history() throws -> History {
        let h = try History()
        for m in ["m1", "m2"] {
            for run in ["run-1", "run-2"] {
                for k in 0..<3 { try h.write("\(m)/\(run)", "crash-\(k).json", signature: k == 2 ? "other" : "crash_here") }
            }
        }
        return h
    }

    @Test func anUnchangedTreeIsTakenFromTheIndexWithoutReadingAReport() throws {
        let h = try history()
        defer { h.remove() }
        let first = try h.group()
        #expect(first.read == 12 && first.indexed == 0)
        #expect(counts(first) == (try h.truth()))
        let second = try h.group()
        #expect(second.read == 0, "an unchanged tree was read again")
        #expect(second.indexed == 12)
        // Not one folder listed: the index's own write (in its own hidden
        // folder) does not change the folder it describes.
        #expect(second.listed == 0, "\(second.listed) folders listed")
        let index = GroupIndex.path(in: h.root)
        let written = try FileManager.default.attributesOfItem(atPath: index)[.modificationDate] as? Date
        _ = try h.group()
        #expect(try FileManager.default.attributesOfItem(atPath: index)[.modificationDate] as? Date == written,
                "an unchanged tree had its index rewritten")
        #expect(counts(second) == counts(first))
    }

    @Test func aReportRewrittenInPlaceIsSeenOnlyOnceItsFolderChanges() throws {
        let h = try history()
        defer { h.remove() }
        _ = try h.group()
        // Damage a report's content in place, same size, folder untouched:
        // the index vouches for the folder, the report is not read.
        let path = "\(h.root)/m1/run-1/crash-0.json"
        let original = try String(contentsOfFile: path, encoding: .utf8)
        let id = try ReportStore.load(path: path).id
        let damaged = History.report(id: id, signature: "crash_HERE", time: 1_795_303_341_130)
        #expect(damaged.utf8.count == original.utf8.count && damaged != original)
        let fd = open(path, O_WRONLY)
        #expect(fd >= 0)
        _ = Array(damaged.utf8).withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        close(fd)
        let unseen = try h.group()
        #expect(unseen.read == 0)
        #expect(counts(unseen)["crash SIGSEGV | crash_here"] == 8)
        #expect(counts(unseen)["crash SIGSEGV | crash_HERE"] == nil)
        // Touching the folder has it listed, and the file's new mtime read.
        #expect(utimes("\(h.root)/m1/run-1", nil) == 0)
        let seen = try h.group()
        #expect(seen.read == 1)
        #expect(counts(seen) == (try h.truth()))
        #expect(counts(seen)["crash SIGSEGV | crash_HERE"] == 1)
    }

    @Test func aRenamedReportIsReadUnderItsNewName() throws {
        let h = try history()
        defer { h.remove() }
        _ = try h.group()
        #expect(rename("\(h.root)/m2/run-2/crash-1.json", "\(h.root)/m2/run-2/renamed.json") == 0)
        let after = try h.group()
        #expect(after.read == 1)
        #expect(after.indexed == 11)
        #expect(counts(after) == (try h.truth()))
        // A name the index never saw is an example only if it exists.
        for g in after.groups { #expect(FileManager.default.fileExists(atPath: g.example), "\(g.example)") }
    }

    @Test func anAddedReportIsReadAndARemovedOneDropped() throws {
        let h = try history()
        defer { h.remove() }
        _ = try h.group()
        try h.write("m1/run-2", "crash-new.json", signature: "new_bug")
        let added = try h.group()
        #expect(added.read == 1)
        #expect(counts(added)["crash SIGSEGV | new_bug"] == 1)
        #expect(counts(added) == (try h.truth()))
        try FileManager.default.removeItem(atPath: "\(h.root)/m2/run-1/crash-2.json")
        let removed = try h.group()
        #expect(removed.read == 0)
        #expect(removed.indexed == 12)
        #expect(counts(removed)["crash SIGSEGV | other"] == 3)
        #expect(counts(removed) == (try h.truth()))
    }

    @Test func aNewSubfolderIsFoundAtAnyDepth() throws {
        let h = try history()
        defer { h.remove() }
        _ = try h.group()
        // A new machine at the top, and a new run inside an indexed machine's folder.
        try h.write("m3/run-1", "crash-0.json", signature: "third_machine")
        try h.write("m1/run-3/deeper", "crash-0.json", signature: "deep_run")
        let after = try h.group()
        #expect(after.read == 2)
        #expect(counts(after)["crash SIGSEGV | third_machine"] == 1)
        #expect(counts(after)["crash SIGSEGV | deep_run"] == 1)
        #expect(counts(after) == (try h.truth()))
        // A report added deep in a folder whose parents did not change.
        try h.write("m1/run-3/deeper", "crash-1.json", signature: "deep_run")
        let deeper = try h.group()
        #expect(deeper.read == 1)
        #expect(counts(deeper)["crash SIGSEGV | deep_run"] == 2)
    }

    /// Ways an index file can be unusable.
    static let damages: [(String, @Sendable (Data) -> Data)] = [
        ("garbage", { _ in Data("not an index at all\n".utf8) }),
        ("empty", { _ in Data() }),
        ("cut in half", { $0.prefix($0.count / 2) }),
        ("one byte short", { $0.dropLast() }),
        ("one byte too many", { $0 + Data([0]) }),
        ("an older format", { d in
            var text = d
            let old = Data("faultline-groups-index 2 ".utf8), now = Data("faultline-groups-index 3 ".utf8)
            if let r = text.range(of: now) { text.replaceSubrange(r, with: old) }
            return text
        }),
        ("other signature rules", { d in
            var text = d
            if let r = text.range(of: Data(" rules-".utf8)) { text.replaceSubrange(r.upperBound..<r.upperBound + 4, with: Data("zzzz".utf8)) }
            return text
        }),
        ("a string number out of range", { d in
            // The last u32 of the file names a string; point it past the table.
            var out = d
            out.replaceSubrange(out.count - 4..<out.count, with: Data([0xff, 0xff, 0xff, 0x7f]))
            return out
        }),
        ("the old text index", { _ in Data("faultline-groups-index 2\n0123 crash 5 victim ? - abc text\n".utf8) }),
    ]

    @Test(arguments: 0..<damages.count)
    func aDamagedIndexIsIgnoredAndRewritten(_ which: Int) throws {
        let (what, damage) = Self.damages[which]
        let h = try history()
        defer { h.remove() }
        let first = try h.group()
        let indexPath = GroupIndex.path(in: h.root)
        let good = try Data(contentsOf: URL(fileURLWithPath: indexPath))
        let bad = damage(good)
        #expect(bad != good, "\(what): the damage changed nothing")
        try bad.write(to: URL(fileURLWithPath: indexPath))
        #expect(GroupIndex.load(directory: h.root).folders.isEmpty, "\(what): a damaged index was loaded")
        let after = try h.group()
        #expect(after.read == 12, "\(what): \(after.read) read")
        #expect(after.skipped.isEmpty && after.indexWarnings.isEmpty, "\(what): \(after.skipped) \(after.indexWarnings)")
        #expect(counts(after) == counts(first))
        // Rewritten: the next run takes everything from it again.
        #expect(!GroupIndex.load(directory: h.root).folders.isEmpty, "\(what): not rewritten")
        #expect(try h.group().read == 0, "\(what)")
    }

    @Test func anIndexInTheOldPlaceIsRemoved() throws {
        let h = try history()
        defer { h.remove() }
        let old = "\(h.root)/\(GroupIndex.oldFileName)"
        try Data("faultline-groups-index 2\n".utf8).write(to: URL(fileURLWithPath: old))
        let o = try h.group()
        #expect(o.read == 12 && o.skipped.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: old))
        #expect(try h.group().listed == 0)
    }

    @Test func whatChangedInTheLastSecondIsLookedAtAgain() throws {
        let h = try history()
        defer { h.remove() }
        // Runs as at the moment the writing ended: every folder and file
        // is within the window, so none is vouched for yet.
        let written = Date()
        _ = try h.group(at: written)
        let again = try h.group(at: written)
        #expect(again.read == 12, "files written in the last second were trusted")
        #expect(again.listed == 7, "\(again.listed) of 7 folders listed")
        // Once settled, they are read once more, then trusted.
        #expect(try h.group().read == 12)
        #expect(try h.group().read == 0)
    }

    @Test func aFileThatIsNotAReportIsNamedEveryRun() throws {
        let h = try history()
        defer { h.remove() }
        try Data("{\"half\":".utf8).write(to: URL(fileURLWithPath: "\(h.root)/m1/run-1/broken.json"))
        for _ in 0..<2 {
            let o = try h.group()
            #expect(o.skipped.count == 1 && o.skipped.first?.contains("broken.json") == true, "\(o.skipped)")
            #expect(o.groups.map(\.count).reduce(0, +) == 12)
        }
    }
}
