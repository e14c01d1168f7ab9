import Foundation

/// One line of a benchmark program's `--json` output (docs/benchmarks.md,
/// "The contract"): `{"metric":…, "config":…, "unit":…, "value":…}` or the
/// same with `"samples":[…]`, optionally with `"note"`.
public struct BenchSampleLine: Codable, Sendable, Equatable {
    /// Dotted metric name.
    public var metric: String
    /// Configuration id.
    public var config: String
    /// Unit of the values.
    public var unit: String
    /// One measurement.
    public var value: Double?
    /// Several measurements.
    public var samples: [Double]?
    /// A remark (e.g. how the measurement was made).
    public var note: String?

    /// `value` and `samples` together.
    public var allValues: [Double] { (value.map { [$0] } ?? []) + (samples ?? []) }

    /// Parses every JSON line of `text`; lines that are not JSON objects are
    /// ignored, a JSON object without metric, config and unit is an error
    /// naming the program and the line.
    public static func parse(_ text: String, program: String) throws -> [BenchSampleLine] {
        var out: [BenchSampleLine] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard line.hasPrefix("{") else { continue }
            do {
                let parsed = try JSONDecoder().decode(BenchSampleLine.self, from: Data(line.utf8))
                guard parsed.value != nil || parsed.samples != nil else {
                    throw BenchError("neither value nor samples")
                }
                out.append(parsed)
            } catch {
                throw BenchError("\(program): output line \(index + 1) is not a bench JSON line (\(error)): \(line.prefix(120))")
            }
        }
        return out
    }
}
