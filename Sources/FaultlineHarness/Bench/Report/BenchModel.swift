import Faultline
import Foundation

/// What became of one configuration of one metric.
public enum BenchStatus: String, Codable, Sendable {
    /// Measured.
    case ok
    /// The program failed (exit status, signal, wrong output).
    case failed
    /// Stopped at the time limit.
    case timedOut = "timed_out"
    /// Not run here (tool not installed, feature not available).
    case unavailable
}

/// One configuration's measurements of one metric.
public struct BenchEntry: Codable, Sendable, Equatable {
    /// Configuration id (`glibc`, `agent`, `valgrind`, …).
    public var config: String
    /// What the configuration is, for people.
    public var label: String
    /// ok, failed, timed_out or unavailable.
    public var status: BenchStatus
    /// Every kept sample (warm-up runs excluded), in the unit of the metric.
    public var samples: [Double]
    /// Median and spread of `samples`; nil when there are none.
    public var summary: BenchSummary?
    /// Against the metric's baseline, when it has one and both were measured.
    public var ratio: BenchRatio?
    /// Why a configuration failed or is unavailable, or a remark.
    public var note: String?

    /// An entry; `summary` is computed from `samples`.
    public init(config: String, label: String, status: BenchStatus = .ok, samples: [Double] = [], note: String? = nil) {
        self.config = config
        self.label = label
        self.status = status
        self.samples = samples
        self.summary = BenchSummary(samples: samples)
        self.note = note
    }
}

/// One metric: the same quantity measured under several configurations.
public struct BenchMetric: Codable, Sendable, Equatable {
    /// Section it belongs to (`crash`, `cxx`, `shim`, `peers`, `python`, `hang`, `memory`, `leaks`).
    public var group: String
    /// Dotted name, e.g. `crash.fault_to_report_0threads`.
    public var name: String
    /// What is measured, for people.
    public var title: String
    /// Unit of every sample (`us`, `ns`, `s`, `MB`, `%core`).
    public var unit: String
    /// The configuration the ratios are against, if any.
    public var baseline: String?
    /// The configurations, in display order.
    public var entries: [BenchEntry]

    /// A metric; call `computeRatios()` once the entries are final.
    public init(group: String, name: String, title: String, unit: String, baseline: String? = nil, entries: [BenchEntry] = []) {
        self.group = group
        self.name = name
        self.title = title
        self.unit = unit
        self.baseline = baseline
        self.entries = entries
    }

    /// Fills every entry's ratio against the baseline entry's summary.
    public mutating func computeRatios() {
        let base = baseline.flatMap { id in entries.first { $0.config == id }?.summary }
        for i in entries.indices {
            entries[i].summary = BenchSummary(samples: entries[i].samples)
            if let base, let s = entries[i].summary { entries[i].ratio = BenchRatio(s, over: base) } else { entries[i].ratio = nil }
        }
    }
}

/// The machine a run happened on.
public struct BenchMachine: Codable, Sendable, Equatable {
    /// Online CPUs.
    public var cpus: Int
    /// `model name` from /proc/cpuinfo.
    public var cpuModel: String
    /// Kernel release (uname -r).
    public var kernel: String
    /// /proc/loadavg's three averages at the start of the run.
    public var loadAtStart: [Double]
    /// The same at the end.
    public var loadAtEnd: [Double]

    /// Reads the machine's description now (load at end = load at start).
    public static func current() -> BenchMachine {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown"
        let kernel = ((try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8)) ?? "unknown")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let load = currentLoad()
        return BenchMachine(cpus: ProcessInfo.processInfo.activeProcessorCount, cpuModel: model, kernel: kernel, loadAtStart: load, loadAtEnd: load)
    }

    /// The three load averages of /proc/loadavg.
    public static func currentLoad() -> [Double] {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).compactMap { Double($0) }
    }
}

/// The results of one `faultline bench` run, as kept in `--json FILE`.
public struct BenchReport: Codable, Sendable, Equatable {
    /// Format version of this file.
    public var version: Int = 1
    /// When the run started (ISO 8601).
    public var startedAt: String
    /// Seconds the whole run took.
    public var elapsedSeconds: Double
    /// True for `--quick`.
    public var quick: Bool
    /// Filters given on the command line (empty: everything).
    public var filters: [String]
    /// Whether the programs were a release or a debug build.
    public var build: String
    /// The machine.
    public var machine: BenchMachine
    /// Every metric, in run order.
    public var metrics: [BenchMetric]

    /// A report.
    public init(startedAt: String, elapsedSeconds: Double, quick: Bool, filters: [String], build: String, machine: BenchMachine, metrics: [BenchMetric]) {
        self.startedAt = startedAt
        self.elapsedSeconds = elapsedSeconds
        self.quick = quick
        self.filters = filters
        self.build = build
        self.machine = machine
        self.metrics = metrics
    }

    /// Pretty, sorted, snake_case JSON.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }

    /// Reads a report written by `jsonData()`; the error names the file.
    public static func load(path: String) throws -> BenchReport {
        let data: Data
        do throws(RegularFile.ReadError) {
            // Results files are tens of KiB; 64 MiB is far beyond any.
            data = try RegularFile.read(path, limit: 64 << 20)
        } catch {
            let why: String
            switch error {
            case .system(let code): why = String(cString: strerror(code))
            case .directory: why = "it is a folder"
            case .notRegular: why = "not a regular file"
            case .tooLarge(let size): why = "\(size) bytes, far more than any results file"
            }
            throw BenchError("\(path): cannot read the file (\(why)); give a results file written by `faultline bench --json FILE`")
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do { return try decoder.decode(BenchReport.self, from: data) } catch {
            throw BenchError("\(path): not a `faultline bench --json` results file (\(Self.reason(error))); give one written by `faultline bench --json FILE`")
        }
    }

    /// A decoding error in a few words: what is wrong, and where.
    static func reason(_ error: Error) -> String {
        func at(_ path: [CodingKey]) -> String {
            path.isEmpty ? "at the top level" : "at " + path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case DecodingError.keyNotFound(let key, let c): return "no '\(key.stringValue)' \(at(c.codingPath))"
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c): return "wrong type \(at(c.codingPath))"
        case DecodingError.dataCorrupted(let c): return c.codingPath.isEmpty ? "not JSON" : "bad value \(at(c.codingPath))"
        default: return "\(error)"
        }
    }
}

/// A benchmark error with a one-line message.
public struct BenchError: Error, CustomStringConvertible, Sendable {
    /// The message.
    public var description: String
    /// An error saying `message`.
    public init(_ message: String) { description = message }
}
