import Faultline
import Foundation

/// The previous run's results, kept as `last-run.json` in the artifacts
/// root, for `--last-failed` and `--failed-first`.
public enum PreviousRun {
    /// The file name under the artifacts root.
    public static let fileName = "last-run.json"

    /// `root/last-run.json`.
    public static func path(artifactsRoot root: String) -> String { (root as NSString).appendingPathComponent(fileName) }

    /// The names of the scenarios that failed (FAIL, FLAKY, XPASS) in the
    /// results at `path`; nil when there is no such file.
    public static func failures(at path: String) throws(ResultsFileError) -> Set<String>? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data: Data
        do throws(RegularFile.ReadError) {
            data = try RegularFile.read(path, limit: 256 << 20)
        } catch {
            throw ResultsFileError("\(path): cannot read the previous run's results (\(describeReadError(error))); remove it")
        }
        let doc = try ResultsDocument.decode(data, file: path)
        return Set(doc.scenarios.filter { [.fail, .flaky, .xpass].contains($0.verdict) }.map(\.name))
    }

    /// Writes `doc` as the previous run for the next one. Nil when written.
    public static func record(_ doc: ResultsDocument, artifactsRoot root: String) -> String? {
        guard let data = try? doc.encoded() else { return "cannot encode the results" }
        return OutputLocation.write(data, to: path(artifactsRoot: root))
    }
}
