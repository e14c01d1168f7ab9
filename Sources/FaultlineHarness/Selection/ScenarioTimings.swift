import Faultline
import Foundation

/// Each scenario's recorded duration (seconds per run), the file the
/// runner reads to balance shards and writes after an unsharded run
/// (`faultline.timings`, docs/runner.md "Timings file").
public struct ScenarioTimings: Sendable, Equatable {
    /// Seconds per run, by scenario name.
    public var durations: [String: Double]

    /// Creates timings.
    public init(durations: [String: Double] = [:]) {
        self.durations = durations
    }

    private struct Document: Codable {
        var schema = "faultline.timings"
        var schemaVersion = 1
        var durations: [String: Double]
    }

    /// The timings in `path`; empty when there is no such file; a one-line
    /// error naming the file when it is not a timings file.
    public static func load(_ path: String) throws(TimingsError) -> ScenarioTimings {
        guard FileManager.default.fileExists(atPath: path) else { return ScenarioTimings() }
        let data: Data
        do throws(RegularFile.ReadError) {
            data = try RegularFile.read(path, limit: 64 << 20)
        } catch {
            throw TimingsError("\(path): cannot read this timings file (\(describeReadError(error))); remove it or pass another --timings")
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        guard let doc = try? decoder.decode(Document.self, from: data), doc.schema == "faultline.timings" else {
            throw TimingsError("\(path): not a faultline timings file (expected {\"schema\": \"faultline.timings\", \"durations\": {NAME: SECONDS}}); remove it or pass another --timings")
        }
        if let bad = doc.durations.first(where: { !$0.value.isFinite || $0.value < 0 }) {
            throw TimingsError("\(path): duration \(bad.value) of \(bad.key) is not a number of seconds >= 0; fix or remove the file")
        }
        return ScenarioTimings(durations: doc.durations)
    }

    /// The mean duration of each scenario's runs that ran (skips and
    /// not-run scenarios are left out: they say nothing of its cost).
    public static func measured(_ doc: ResultsDocument) -> ScenarioTimings {
        var durations: [String: Double] = [:]
        for s in doc.scenarios {
            let ran = s.runs.filter { $0.verdict != .skip }
            if !ran.isEmpty { durations[s.name] = ran.reduce(0) { $0 + $1.durationSeconds } / Double(ran.count) }
        }
        return ScenarioTimings(durations: durations)
    }

    /// Adds `new` to the file at `path` (new values replace old ones, other
    /// scenarios keep theirs), under a lock on its folder so concurrent runs
    /// do not lose each other's entries; the file is replaced atomically.
    /// Nil when written, else one line naming the file and why.
    public static func update(_ path: String, with new: ScenarioTimings) -> String? {
        let folder = (path as NSString).deletingLastPathComponent
        let lock = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if lock >= 0 {
            while flock(lock, LOCK_EX) != 0 && errno == EINTR {}
        }
        defer { if lock >= 0 { close(lock) } }
        var merged = (try? load(path)) ?? ScenarioTimings()
        merged.durations.merge(new.durations) { _, fresh in fresh }
        return write(merged, to: path)
    }

    /// Writes `timings` to `path` (atomically). Nil when written.
    public static func write(_ timings: ScenarioTimings, to path: String) -> String? {
        let rounded = timings.durations.mapValues { ($0 * 1000).rounded() / 1000 }
        guard let data = try? JSONEncoderFactory.pretty().encode(Document(durations: rounded)) else { return "cannot encode \(path)" }
        return OutputLocation.write(data + Data("\n".utf8), to: path)
    }
}

/// A timings file that cannot be used, in one line naming it.
public struct TimingsError: Error, CustomStringConvertible {
    /// The line.
    public var description: String

    init(_ description: String) { self.description = description }
}

/// A `RegularFile` read error as a few words.
func describeReadError(_ error: RegularFile.ReadError) -> String {
    switch error {
    case .system(let code): return String(cString: strerror(code))
    case .directory: return "it is a folder"
    case .notRegular: return "not a regular file"
    case .tooLarge(let size): return "\(size) bytes is too large"
    }
}
