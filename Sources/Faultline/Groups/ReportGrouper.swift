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

    /// What grouping found.
    public struct Outcome {
        /// Groups, most reports first (ties: latest first).
        public var groups: [ReportGroup]
        /// Reports read (the index did not hold them).
        public var read: Int
        /// Reports the index gave.
        public var indexed: Int
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
        var all: [(path: String, record: GroupRecord)] = []
        for dir in directories {
            let files = try ReportTree.files(under: dir)
            var index = GroupIndex.load(directory: dir)
            var fresh: [String: GroupIndex.Entry] = [:]
            fresh.reserveCapacity(files.count)
            var changed = files.count != index.entries.count
            for file in files {
                if let e = index.entries[file.relative], e.size == file.size, e.mtimeNs == file.mtimeNs {
                    fresh[file.relative] = e
                    outcome.indexed += 1
                } else {
                    outcome.read += 1
                    changed = true
                    do throws(ReportLoadError) {
                        fresh[file.relative] = GroupIndex.Entry(size: file.size, mtimeNs: file.mtimeNs, records: try records(at: file.path))
                    } catch {
                        outcome.skipped.append("\(error)")
                        continue
                    }
                }
                for r in fresh[file.relative]!.records { all.append((file.path, r)) }
            }
            if changed {
                index.entries = fresh
                if let w = index.save() { outcome.indexWarnings.append(w) }
            }
        }
        let since = sinceUnixMs ?? 0
        outcome.groups = Self.groups(all.filter { $0.record.timeUnixMs >= since }, byPhase: byPhase)
        return outcome
    }

    /// The records of the report at `path`: from its top-level fields
    /// when it carries a signature (one JSON parse, no typed decode), else
    /// from the typed report, signed now.
    private func records(at path: String) throws(ReportLoadError) -> [GroupRecord] {
        let data = try ReportStore.readFile(path)
        if let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any], o["schema"] as? String == "faultline.report",
           let v = o["schema_version"] as? Int, v <= ReportStore.supportedSchemaVersion,
           let kind = o["kind"] as? String, let time = (o["time_unix_ms"] as? NSNumber)?.uint64Value,
           let process = o["process"] as? [String: Any], process["pid"] is NSNumber, o["id"] is String,
           let sig = o["signature"] as? [String: Any], let id = sig["id"] as? String, let text = sig["text"] as? String {
            let base = GroupRecord(kind: kind, timeUnixMs: time, process: process["name"] as? String ?? "?",
                                   machine: o["host"] as? String ?? "?", phase: o["phase"] as? String, signatureID: id, signatureText: text)
            guard let groups = sig["leak_groups"] as? [[String: Any]], !groups.isEmpty else { return [base] }
            return groups.compactMap { g in
                guard let id = g["id"] as? String, let text = g["text"] as? String else { return nil }
                var r = base
                r.signatureID = id
                r.signatureText = text
                return r
            }
        }
        let report = try ReportStore.decode(data, path: path)
        return GroupRecord.records(of: report, signature: sign(report))
    }

    /// The report's stored signature, or one computed now.
    private func sign(_ report: Report) -> ReportSignature {
        if let s = report.signature { return s }
        if let symbolicator, let s = symbolicator.symbolicate(report).signature { return s }
        return SignatureBuilder().signature(of: report)
    }

    /// Records grouped by signature id (and phase).
    static func groups(_ records: [(path: String, record: GroupRecord)], byPhase: Bool) -> [ReportGroup] {
        struct Key: Hashable { var id: String; var phase: String? }
        struct Acc {
            var first: GroupRecord, count = 0, firstMs = UInt64.max, lastMs: UInt64 = 0, example = ""
            var processes: Set<String> = [], machines: Set<String> = []
            mutating func add(_ r: GroupRecord, path: String) {
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
            acc[key, default: Acc(first: r)].add(r, path: path)
        }
        return acc.map { key, a in
            ReportGroup(signature: key.id, text: a.first.signatureText, kind: a.first.kind, phase: key.phase, count: a.count,
                        firstSeen: Self.iso(a.firstMs), lastSeen: Self.iso(a.lastMs),
                        processes: a.processes.sorted(), machines: a.machines.sorted(), example: a.example)
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
