import Faultline
import Foundation
import Testing

/// node under `faultline exec` with `--perf-basic-prof`: the hang report's
/// frames in V8's JIT code are named from node's perf map file.
@Suite struct NodeJITFramesTests {
    static let node = ToolLocator.find("node")

    @Test(.enabled(if: node != nil, "node is not installed; JIT frames named from a perf map are not checked"))
    func aHangInJavaScriptNamesTheFunctionFromThePerfMap() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A function named for this test spins 4 s, well past the hang
        // threshold (2 s), after node has run its event loop for a second
        // (ten timer waits: one wait is a test, not a loop; docs/hangs.md);
        // V8 compiles its loop to machine code.
        let script = "\(dir)/busy.js"
        try """
            function faultlinePerfMapSpin() { const t = Date.now(); while (Date.now() < t + 4000) {} }
            let ticks = 0
            const loop = setInterval(() => { if (++ticks === 10) { clearInterval(loop); faultlinePerfMapSpin() } }, 100)
            """.write(toFile: script, atomically: false, encoding: .utf8)
        let reports = "\(dir)/reports"
        let run = try runProgram(try BuildProducts.path("faultline"),
                                 ["exec", "--report-dir", reports, "--", try #require(Self.node), "--perf-basic-prof", script],
                                 // node writes an isolate-…-v8.log into its working directory too.
                                 directory: dir)
        let hang = try #require(try FileManager.default.contentsOfDirectory(atPath: reports).first { $0.hasPrefix("hang-") },
                                "no hang report: \(run.stderr)")
        let report = try ReportStore.load(path: "\(reports)/\(hang)")
        let map = "/tmp/perf-\(report.process.pid).map"
        defer { try? FileManager.default.removeItem(atPath: map) }

        // The printed culprit stack: `#6  0x…  JS:*faultlinePerfMapSpin /…/busy.js:1:10 [JIT]  (perf map)`.
        let jitLines = run.stderr.split(separator: "\n").filter { $0.contains("faultlinePerfMapSpin \(script)") }
        #expect(!jitLines.isEmpty && jitLines.allSatisfy { $0.hasSuffix(" [JIT]  (perf map)") }, "\(run.stderr)")

        // The JSON: the name and the file it came from, no source line.
        let shown = try runProgram(try BuildProducts.path("faultline"), ["report", "show", "--json", "\(reports)/\(hang)"])
        let json = try JSONDecoderFactory.reports().decode(Report.self, from: Data(shown.stdout.utf8))
        let culprit = try #require(json.crashedThread?.frames)
        let named = culprit.compactMap { $0.symbol }.filter { $0.function.contains("faultlinePerfMapSpin") }
        #expect(!named.isEmpty, "\(culprit)")
        for symbol in named {
            #expect(symbol.perfMap == map)
            #expect(symbol.file == nil && symbol.line == nil)
        }
    }
}
