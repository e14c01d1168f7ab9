import Foundation

/// Groups every report under some folders by signature
/// (`faultline report groups`): reads each folder's index (`GroupIndex`),
/// reads only the reports it does not describe as they are now, and
/// writes it back.
public struct ReportGrouper {
    /// Symbolicates reports that carry no signature (written by a harness
    /// or an old faultline); nil signs them unsymbolicated.
    public var symbolicator: Symbolicator?
    /// Only reports started at or after this instant (ms since the epoch).
    public var sinceUnixMs: UInt64?
    /// Split each signature's group by the phase its reports were in.
    public var byPhase = false
    /// The time now: what "changed in the last second" is measured from.
    /// Tests move it forward to stand for a later run without sleeping.
    var now: () -> Date = { Date() }

    /// What grouping found.
    public struct Outcome {
        /// Groups, most reports first (ties: latest first).
        public var groups: [ReportGroup]
        /// Reports read (the index did not hold them).
        public var read: Int
        /// Reports the index gave.
        public var indexed: Int
        /// Folders listed (the index did not vouch for them as they are).
        public var listed: Int = 0
        /// Files that are not reports, one line each.
        public var skipped: [String]
        /// Index files that could not be written (a read-only folder).
        public var indexWarnings: [String]
    }

    /// A grouper.
    public init(symbolicator: Symbolicator?) {
        self.symbolicator = symbolicator
    }

    /// Groups the reports under `directories` (recursively). Throws when a
    /// folder cannot be read at all.
    public func group(_ directories: [String]) throws -> Outcome {
        var outcome = Outcome(groups: [], read: 0, indexed: 0, skipped: [], indexWarnings: [])
        var all: [(path: Located, record: GroupRecord)] = []
        // A folder or file changed within the last second may change again
        // in the same clock tick unseen: it is listed/read again next time.
        let recentNs = Int64((now().timeIntervalSince1970 - 1) * 1e9)
        for dir in directories {
            GroupIndex.prepare(directory: dir)
            var index = GroupIndex.load(directory: dir)
            var scan = FolderScan(old: index.folders, recentNs: recentNs)
            try scan.run(root: dir)
            outcome.indexed += scan.indexed
            outcome.read += scan.pending.count
            outcome.listed += scan.listed.count
            let results = read(scan.pending.map(\.path))
            var failed: [String: Set<Int>] = [:]
            for (k, p) in scan.pending.enumerated() {
                switch results[k] {
                case .success(let records): scan.new[p.folder]!.files[p.file].records = records
                case .failure(let error):
                    outcome.skipped.append("\(error)")
                    failed[p.folder, default: []].insert(p.file)
                }
            }
            // Files that are not reports stay out of the index, and their
            // folder is listed again next time, so each run names them.
            for (folder, files) in failed {
                var f = scan.new[folder]!
                f.files = f.files.enumerated().filter { !files.contains($0.offset) }.map(\.element)
                f.key = .unverified
                scan.new[folder] = f
            }
            for rel in scan.new.keys.sorted() {
                let f = scan.new[rel]!
                for file in f.files {
                    for r in file.records { all.append((Located(root: dir, folder: rel, name: file.name), r)) }
                }
            }
            let changed = !scan.pending.isEmpty || scan.new.count != index.folders.count
                || scan.listed.contains { scan.new[$0] != index.folders[$0] }
            if changed {
                index.folders = scan.new
                if let w = index.save() { outcome.indexWarnings.append(w) }
            }
        }
        let since = sinceUnixMs ?? 0
        outcome.groups = Self.groups(all.filter { $0.record.timeUnixMs >= since }, byPhase: byPhase)
        return outcome
    }

    /// Where a record came from; the path is only built for examples.
    struct Located {
        var root: String, folder: String, name: String
        var path: String { FolderScan.join(folder.isEmpty ? root : FolderScan.join(root, folder), name) }
    }

    /// What reading one file gave before the slow path.
    private enum FastRead {
        case records([GroupRecord])
        case slow(Data)
        case failed(ReportLoadError)
    }

    /// Each file at `paths` sharded over the cores: read, and its top-level
    /// fields taken by `ReportFieldReader`; the files it cannot answer for
    /// (no stored signature, odd JSON) are then decoded and signed in full,
    /// one at a time (the symbolicator is not shared across threads).
    private func read(_ paths: [String]) -> [Result<[GroupRecord], ReportLoadError>] {
        let out = UnsafeMutableBufferPointer<FastRead>.allocate(capacity: paths.count)
        defer { out.deinitialize(); out.deallocate() }
        let slots = SendableSlots(base: out.baseAddress)
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, paths.count / 64 + 1))
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            var k = w
            while k < paths.count {
                let value: FastRead
                do throws(ReportLoadError) {
                    let data = try ReportStore.readFile(paths[k])
                    let fast = data.withUnsafeBytes { ReportFieldReader.records($0, supportedSchemaVersion: ReportStore.supportedSchemaVersion) }
                    value = fast.map(FastRead.records) ?? .slow(data)
                } catch {
                    value = .failed(error)
                }
                (slots.base! + k).initialize(to: value)
                k += workers
            }
        }
        return paths.indices.map { k -> Result<[GroupRecord], ReportLoadError> in
            switch out[k] {
            case .records(let r): return .success(r)
            case .failed(let e): return .failure(e)
            case .slow(let data):
                do throws(ReportLoadError) {
                    let report = try ReportStore.decode(data, path: paths[k])
                    return .success(GroupRecord.records(of: report, signature: sign(report)))
                } catch { return .failure(error) }
            }
        }
    }

    /// The report's stored signature, or one computed now.
    private func sign(_ report: Report) -> ReportSignature {
        if let s = report.signature { return s }
        if let symbolicator, let s = symbolicator.symbolicate(report).signature { return s }
        return SignatureBuilder().signature(of: report)
    }

    /// Records grouped by signature id (and phase).
    static func groups(_ records: [(path: Located, record: GroupRecord)], byPhase: Bool) -> [ReportGroup] {
        struct Key: Hashable { var id: String; var phase: String? }
        struct Acc {
            var first: GroupRecord, count = 0, firstMs = UInt64.max, lastMs: UInt64 = 0, example: Located?
            var processes: Set<String> = [], machines: Set<String> = []
            mutating func add(_ r: GroupRecord, path: Located) {
                count += 1
                firstMs = min(firstMs, r.timeUnixMs)
                if r.timeUnixMs >= lastMs { lastMs = r.timeUnixMs; example = path }
                processes.insert(r.process)
                machines.insert(r.machine)
            }
        }
        var acc: [Key: Acc] = [:]
        for (path, r) in records {
            let key = Key(id: r.signatureID, phase: byPhase ? r.phase : nil)
            // In place: a copy out and back would copy the sets each time.
            acc[key, default: Acc(first: r, example: nil)].add(r, path: path)
        }
        return acc.map { key, a in
            ReportGroup(signature: key.id, text: a.first.signatureText, kind: a.first.kind, phase: key.phase, count: a.count,
                        firstSeen: Self.iso(a.firstMs), lastSeen: Self.iso(a.lastMs),
                        processes: a.processes.sorted(), machines: a.machines.sorted(), example: a.example?.path ?? "")
        }.sorted { $0.count != $1.count ? $0.count > $1.count : ($0.lastSeen != $1.lastSeen ? $0.lastSeen > $1.lastSeen : $0.signature < $1.signature) }
    }

    /// Milliseconds since the epoch as `2026-11-21T23:22:21.130Z`.
    static func iso(_ ms: UInt64) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }
}

/// The result slots the reading threads fill, one each, never the same.
private struct SendableSlots<T>: @unchecked Sendable {
    let base: UnsafeMutablePointer<T>?
}
