import ArgumentParser
import Faultline
import FaultlineHarness
import Foundation

/// `--junit FILE` and `--json FILE`: the files `faultline run` and
/// `faultline results merge` also write the results to, besides the table
/// they print. One group, so both commands spell, check and write them alike.
struct ResultsFileOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Also write JUnit XML results to this file.", valueName: "file"))
    var junit: String?

    @Option(help: ArgumentHelp("Also write machine-readable JSON results to this file.", valueName: "file"))
    var json: String?

    /// Each option with its file (nil when not given), for exitUnlessWritable.
    var files: [(option: String, path: String?)] { [("--junit", junit), ("--json", json)] }

    /// Writes `document` as JUnit XML and as JSON to the files given; exits
    /// 73 when one cannot be written (the printed table is complete then).
    func write(_ document: ResultsDocument) throws {
        if let junit { Self.write(Data(JUnitWriter.render(document).utf8), to: junit) }
        if let json { Self.write(try document.encoded(), to: json) }
    }

    /// Writes all of `data` to `path` or nothing; exits 73 when it cannot.
    /// For any file a command writes after printing its results.
    static func write(_ data: Data, to path: String) {
        if let why = OutputLocation.write(data, to: path) {
            exitCannotWrite("\(why); the results above are complete, only this file is missing")
        }
    }
}
