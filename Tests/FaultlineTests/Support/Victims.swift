import Faultline
import Foundation

/// Runs victims under the real agent and returns the reports they leave.
enum Victims {
    /// Runs `victim-c COMMAND` with the agent preloaded; returns the report
    /// file it wrote (exactly one is expected) and the run.
    static func crashC(_ command: String, in dir: String) throws -> (path: String, run: Finished) {
        let run = try preloaded("victim-c", command, in: dir)
        return (try onlyReport(in: dir), run)
    }

    /// Runs `victim-cxx COMMAND` with the agent preloaded; returns the one
    /// report it wrote and the run.
    static func cxx(_ command: String, in dir: String) throws -> (path: String, run: Finished) {
        let run = try preloaded("victim-cxx", command, in: dir)
        return (try onlyReport(in: dir), run)
    }

    /// Runs `victim-hang COMMAND` with the agent's crash and hang detectors
    /// (and `environment`); returns the run. Its reports are in `dir`.
    static func hang(_ command: String, in dir: String, environment: [String: String] = [:]) throws -> Finished {
        try preloaded("victim-hang", command, in: dir, environment: environment.merging(["FAULTLINE_DETECTORS": "crash,hang"]) { $1 })
    }

    /// Runs `victim-heap COMMAND` with the agent and the malloc shim
    /// preloaded (crash and use_after_free detectors); returns the one
    /// report it wrote and the run.
    static func heap(_ command: String, in dir: String) throws -> (path: String, run: Finished) {
        let run = try heapRun(command, in: dir)
        return (try onlyReport(in: dir), run)
    }

    /// Runs `victim-heap COMMAND` as `heap` does, with `environment` on
    /// top, for a command that may leave several reports (all in `dir`).
    static func heapRun(_ command: String, in dir: String, environment: [String: String] = [:]) throws -> Finished {
        try preloaded("victim-heap", command, in: dir, libraries: ["libFaultlineAgentPreload.so", "libFaultlineMallocShim.so"],
                      environment: environment.merging(["FAULTLINE_DETECTORS": "crash,use_after_free"]) { $1 })
    }

    /// Runs the victim `name` with `libraries` preloaded, its reports going
    /// to `dir`, and `environment` on top.
    private static func preloaded(_ name: String, _ command: String, in dir: String,
                                  libraries: [String] = ["libFaultlineAgentPreload.so"],
                                  environment: [String: String] = [:]) throws -> Finished {
        let victim = try BuildProducts.path(name)
        let preload = try libraries.map { try BuildProducts.path($0) }.joined(separator: ":")
        return try runProgram(victim, [command], environment: environment.merging([
            "FAULTLINE_REPORT_DIR": dir, "LD_PRELOAD": preload]) { $1 })
    }

    /// Runs `victim-swift COMMAND` (which links the agent and installs it
    /// when FAULTLINE_REPORT_DIR is set).
    static func crashSwift(_ command: String, in dir: String) throws -> (path: String, run: Finished) {
        let victim = try BuildProducts.path("victim-swift")
        let run = try runProgram(victim, [command], environment: ["FAULTLINE_REPORT_DIR": dir])
        return (try onlyReport(in: dir), run)
    }

    /// The single report file in `dir`.
    static func onlyReport(in dir: String) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
        guard names.count == 1 else { throw Unexpected(what: "\(names.count) reports in \(dir): \(names)") }
        return "\(dir)/\(names[0])"
    }

    /// The path of a file under `Sources/`, e.g. `victim-c/main.c`.
    static func source(_ relative: String) -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
        return "\(root)/Sources/\(relative)"
    }

    /// The number of the only line of `file` that contains `marker`.
    static func line(containing marker: String, in file: String) throws -> Int {
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let matches = lines.indices.filter { lines[$0].contains(marker) }
        guard matches.count == 1 else { throw Unexpected(what: "\(matches.count) lines of \(file) contain \(marker)") }
        return matches[0] + 1
    }

    struct Unexpected: Error, CustomStringConvertible {
        let what: String
        var description: String { what }
    }
}
