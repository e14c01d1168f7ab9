import Foundation

/// Machine-readable results (`--json FILE`), schema `faultline.run-results`
/// (`ResultsDocument`, docs/runner.md).
public enum JSONResultsWriter {
    /// The JSON bytes.
    public static func render(_ result: SuiteResult) throws -> Data {
        try ResultsDocument(result).encoded()
    }
}
