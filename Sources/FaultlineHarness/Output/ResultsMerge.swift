import Faultline
import Foundation

/// Combines the results files of a suite's shards into the results one
/// run of the whole suite would have written (`faultline results merge`).
///
/// Each file records the whole selection's names (`suite`) and its shard,
/// so a merge knows what it should end with: every file must name the same
/// suite and shard count, no shard may come twice, every suite scenario
/// must be in exactly one file, and no file may hold one outside the suite.
public enum ResultsMerge {
    /// The largest results file read.
    public static let maxFileBytes = 256 << 20

    /// Reads and merges the files at `paths` (named as given in errors).
    public static func merge(files paths: [String]) throws(ResultsFileError) -> ResultsDocument {
        var docs: [(String, ResultsDocument)] = []
        for path in paths {
            let data: Data
            do throws(RegularFile.ReadError) {
                data = try RegularFile.read(path, limit: maxFileBytes)
            } catch {
                throw ResultsFileError("\(path): cannot read (\(describeReadError(error))); pass the --json files of every shard")
            }
            docs.append((path, try ResultsDocument.decode(data, file: path)))
        }
        return try merge(docs)
    }

    /// Merges decoded documents, each with the file it came from.
    public static func merge(_ docs: [(file: String, doc: ResultsDocument)]) throws(ResultsFileError) -> ResultsDocument {
        guard let (firstFile, first) = docs.first else { throw ResultsFileError("no results files to merge; pass the --json files of every shard") }
        var shardFile: [Int: String] = [:]
        for (file, doc) in docs {
            if Set(doc.suite) != Set(first.suite) {
                let extra = Set(doc.suite).symmetricDifference(first.suite).sorted()
                throw ResultsFileError("\(file) and \(firstFile) are results of different suites (\(names(extra)) in only one); merge the shards of one run")
            }
            if doc.shard?.total != first.shard?.total {
                throw ResultsFileError("\(file) is shard \(doc.shard?.description ?? "none (a whole run)") but \(firstFile) is shard \(first.shard?.description ?? "none (a whole run)"); merge the shards of one split")
            }
            if let s = doc.shard {
                if let other = shardFile[s.index] {
                    throw ResultsFileError("\(other) and \(file) are both shard \(s); pass each shard's results once")
                }
                shardFile[s.index] = file
            } else if docs.count > 1 {
                throw ResultsFileError("\(file) is a whole (unsharded) run, so there is nothing to merge it with; pass the --json files of one sharded run")
            }
        }
        let suite = Set(first.suite)
        var byName: [String: (String, ResultsDocument.Entry)] = [:]
        for (file, doc) in docs {
            for entry in doc.scenarios {
                guard suite.contains(entry.name) else {
                    throw ResultsFileError("\(file): scenario \(entry.name) is not in the suite the file itself lists; the file was changed, rerun its shard")
                }
                if let (other, _) = byName[entry.name] {
                    throw ResultsFileError("scenario \(entry.name) is in both \(other) and \(file); the shards overlap (were they split with different --timings files?)")
                }
                byName[entry.name] = (file, entry)
            }
        }
        let missing = first.suite.filter { byName[$0] == nil }
        if !missing.isEmpty {
            let absent = first.shard.map { total in (1...total.total).filter { shardFile[$0] == nil }.map { "\($0)/\(total.total)" } } ?? []
            throw ResultsFileError("scenario\(missing.count == 1 ? "" : "s") \(names(missing)) \(missing.count == 1 ? "is" : "are") in no results file"
                + (absent.isEmpty ? "" : " (no file for shard \(absent.joined(separator: ", ")))") + "; pass the --json files of every shard")
        }
        let formatter = ISO8601DateFormatter()
        let starts = docs.compactMap { formatter.date(from: $0.doc.startedAt) }
        let ends = docs.compactMap { d in formatter.date(from: d.doc.startedAt).map { $0.addingTimeInterval(d.doc.wallSeconds) } }
        let start = starts.min(), end = ends.max()
        let wall = start.flatMap { s in end.map { $0.timeIntervalSince(s) } } ?? docs.map(\.doc.wallSeconds).max() ?? 0
        return ResultsDocument(
            startedAt: start.map { formatter.string(from: $0) } ?? first.startedAt, wallSeconds: wall,
            artifactsDirectory: first.artifactsDirectory, suite: first.suite,
            mergedFrom: docs.map { .init(file: $0.file, shard: $0.doc.shard, artifactsDirectory: $0.doc.artifactsDirectory) },
            scenarios: first.suite.map { byName[$0]!.1 })
    }

    /// `a, b, c` or `a, b, c, … (12 in all)`.
    static func names(_ list: [String]) -> String {
        list.count <= 5 ? list.joined(separator: ", ") : list.prefix(5).joined(separator: ", ") + ", … (\(list.count) in all)"
    }
}
