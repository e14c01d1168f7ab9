import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import FaultlineHarness

/// A report with one baseline metric and one absolute metric.
private func report(shim: [Double], watchdog: [Double], shimStatus: BenchStatus = .ok) -> BenchReport {
    var a = BenchMetric(group: "shim", name: "shim.synthetic_cpu", title: "Synthetic <workload> & co", unit: "s", baseline: "glibc", entries: [
        BenchEntry(config: "glibc", label: "glibc alone", samples: [1.0, 1.02, 0.98, 1.01, 0.99]),
        BenchEntry(config: "quarantine", label: "shim: quarantine", status: shimStatus, samples: shimStatus == .ok ? shim : [],
                   note: shimStatus == .ok ? nil : "exit status 1"),
        BenchEntry(config: "valgrind", label: "valgrind memcheck", status: .unavailable, note: "not installed"),
    ])
    a.computeRatios()
    var b = BenchMetric(group: "hang", name: "hang.watchdog_cpu", title: "Watchdog CPU", unit: "%core", entries: [
        BenchEntry(config: "inferred_idle", label: "inferred, idle", samples: watchdog),
    ])
    b.computeRatios()
    let machine = BenchMachine(cpus: 2, cpuModel: "Test CPU", kernel: "6.1", loadAtStart: [0.5, 0.4, 0.3], loadAtEnd: [1, 1, 1])
    return BenchReport(startedAt: "2026-11-22T00:00:00Z", elapsedSeconds: 61, quick: true, filters: [], build: "release", machine: machine, metrics: [a, b])
}

@Suite struct BenchComparisonTests {
    @Test func aRatioThatGrewBeyondThresholdAndSpreadRegressed() {
        let old = report(shim: [1.2, 1.25, 1.3], watchdog: [0.2, 0.21, 0.22])
        let new = report(shim: [1.8, 1.85, 1.9], watchdog: [0.2, 0.21, 0.22])
        let changes = BenchComparison.compare(old: old, new: new)
        #expect(changes.count == 1)
        #expect(changes.first?.kind == .regressed)
        #expect(changes.first?.metric == "shim.synthetic_cpu" && changes.first?.config == "quarantine")
        #expect(changes.first?.basis == "ratio")
        #expect(changes.first?.text.contains("1.25x -> 1.85x") == true)
        #expect(changes.first?.text.contains("old p90 1.29x") == true)
    }

    @Test func movesWithinTheThresholdOrTheOldSpreadAreNoise() {
        let old = report(shim: [1.2, 1.25, 1.3], watchdog: [0.1, 0.2, 0.4])
        // +4 %: under the threshold. Watchdog +25 % but inside the old p10..p90.
        let new = report(shim: [1.25, 1.3, 1.35], watchdog: [0.2, 0.25, 0.3])
        #expect(BenchComparison.compare(old: old, new: new).isEmpty)
    }

    @Test func absoluteFiguresAreComparedWithoutABaselineAndImprovementsListedLast() {
        let old = report(shim: [1.8, 1.85, 1.9], watchdog: [0.2, 0.21, 0.22])
        let new = report(shim: [1.2, 1.25, 1.3], watchdog: [0.5, 0.5, 0.5])
        let changes = BenchComparison.compare(old: old, new: new)
        #expect(changes.map(\.kind) == [.regressed, .improved])
        #expect(changes[0].metric == "hang.watchdog_cpu" && changes[0].basis == "%core")
        #expect(changes[1].metric == "shim.synthetic_cpu")
    }

    @Test func aConfigurationThatNowFailsRegressed() {
        let old = report(shim: [1.2, 1.25, 1.3], watchdog: [0.2, 0.2, 0.2])
        let new = report(shim: [], watchdog: [0.2, 0.2, 0.2], shimStatus: .failed)
        let changes = BenchComparison.compare(old: old, new: new)
        #expect(changes.count == 1 && changes[0].kind == .regressed && changes[0].new == nil)
        #expect(changes[0].text.contains("now failed"))
    }

    @Test func theThresholdIsAnOption() {
        let old = report(shim: [1.2, 1.25, 1.3], watchdog: [0.2, 0.2, 0.2])
        let new = report(shim: [1.4, 1.45, 1.5], watchdog: [0.2, 0.2, 0.2])
        // +16 %: flagged at 10 %, not at the default 25 %.
        #expect(BenchComparison.compare(old: old, new: new, threshold: 0.10).count == 1)
        #expect(BenchComparison.compare(old: old, new: new).isEmpty)
    }

    @Test func overlappingSpreadsAreNoiseEvenBeyondTheThreshold() {
        let old = report(shim: [1.0, 1.25, 1.9], watchdog: [0.2, 0.2, 0.2])
        let new = report(shim: [1.5, 1.7, 2.0], watchdog: [0.2, 0.2, 0.2])
        #expect(BenchComparison.compare(old: old, new: new).isEmpty)
    }

    @Test func figuresWithoutSpreadOrMeasuredDifferentlyAreNotCompared() {
        let old = report(shim: [1.2, 1.25, 1.3], watchdog: [0.2])
        var new = report(shim: [1.2, 1.25, 1.3], watchdog: [0.9])
        var changes = BenchComparison.compare(old: old, new: new)
        #expect(changes.map(\.kind) == [.notCompared])
        #expect(changes[0].metric == "hang.watchdog_cpu" && changes[0].text.contains("fewer than 3 samples"))
        new = report(shim: [3, 3, 3], watchdog: [0.2])
        new.metrics[0].title = "Synthetic workload, 4x the operations"
        changes = BenchComparison.compare(old: old, new: new).filter { $0.metric == "shim.synthetic_cpu" }
        #expect(changes.count == 1 && changes[0].kind == .notCompared && changes[0].config.isEmpty)
    }
}

@Suite struct BenchReportTests {
    @Test func resultsSurviveAJSONRoundTripThroughAFile() throws {
        let dir = try TemporaryDirectory()
        let r = report(shim: [1.2, 1.25, 1.3], watchdog: [0.2, 0.21])
        let path = dir.path + "/bench.json"
        try r.jsonData().write(to: URL(fileURLWithPath: path))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\"elapsed_seconds\"") && text.contains("\"cpu_model\""))
        #expect(try BenchReport.load(path: path) == r)
    }

    @Test func aFileThatIsNotResultsGivesAnErrorNamingIt() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/other.json"
        try "{\"name\": 1}".write(toFile: path, atomically: true, encoding: .utf8)
        for p in [path, dir.path + "/missing.json"] {
            do {
                _ = try BenchReport.load(path: p)
                Issue.record("\(p) was accepted")
            } catch {
                #expect("\(error)".hasPrefix(p + ":"))
                #expect(!"\(error)".contains("\n"), "more than one line: \(error)")
            }
        }
        // What is wrong, in a few words (not the decoder's debug text).
        do {
            _ = try BenchReport.load(path: path)
        } catch {
            #expect("\(error)" == "\(path): not a `faultline bench --json` results file (no 'version' at the top level); give one written by `faultline bench --json FILE`")
        }
        // A huge file is refused by its size before it is read (it was read
        // whole: a 3 GB sparse file took gigabytes of memory).
        let huge = dir.path + "/huge.json"
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        #expect(truncate(huge, 3 << 30) == 0)
        do {
            _ = try BenchReport.load(path: huge)
            Issue.record("a 3 GB file was accepted")
        } catch {
            #expect("\(error)" == "\(huge): cannot read the file (3221225472 bytes, far more than any results file); give a results file written by `faultline bench --json FILE`")
        }
    }

    @Test func consoleTableShowsEveryConfigurationAndWhyOneIsMissing() {
        let text = BenchConsole.render(report(shim: [1.2, 1.25, 1.3], watchdog: [0.2]).metrics)
        #expect(text.contains("glibc alone") && text.contains("1.25x"))
        #expect(text.contains("UNAVAILABLE: not installed"))
        #expect(text.contains("== hang"))
    }

    @Test func htmlHoldsTheNumbersAndWellFormedSVGBarsWithErrorMarks() throws {
        let r = report(shim: [1.2, 1.25, 1.3], watchdog: [0.2, 0.3])
        let html = BenchHTML.render(r)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(!html.contains("<script") && !html.contains("<link") && !html.contains("src="))
        #expect(html.contains("Test CPU") && html.contains("1.25x"))
        #expect(html.contains("Synthetic &lt;workload&gt; &amp; co"))
        // Each chart is well-formed XML with one bar and one error mark per
        // measured configuration, and the unavailable one named.
        var rest = Substring(html)
        var charts: [ChartShape] = []
        while let start = rest.range(of: "<svg"), let end = rest.range(of: "</svg>", range: start.upperBound..<rest.endIndex) {
            let svg = String(rest[start.lowerBound..<end.upperBound])
            let shape = ChartShape()
            let parser = XMLParser(data: Data(svg.utf8))
            parser.delegate = shape
            #expect(parser.parse(), "chart is not well-formed XML: \(svg.prefix(200))")
            charts.append(shape)
            rest = rest[end.upperBound...]
        }
        #expect(charts.count == 2)
        #expect(charts[0].bars == 2 && charts[0].errorMarks == 2)
        #expect(charts[0].texts.contains { $0.hasPrefix("unavailable: not installed") })
        #expect(charts[1].bars == 1 && charts[1].errorMarks == 1)
        // The bar of the slower configuration is longer than the baseline's.
        #expect(charts[0].barWidths.count == 2 && charts[0].barWidths[1] > charts[0].barWidths[0])
        // The raw samples are in the table.
        #expect(html.contains("<td class=\"note\">1.20 1.25 1.30</td>"))
    }

    @Test func chartsSwitchToALogScaleWhenFiguresSpanMoreThan50x() {
        var m = BenchMetric(group: "peers", name: "peers.x", title: "x", unit: "s", baseline: "glibc", entries: [
            BenchEntry(config: "glibc", label: "glibc", samples: [0.1]), BenchEntry(config: "valgrind", label: "valgrind", samples: [20]),
        ])
        m.computeRatios()
        #expect(BenchHTML.chart(m).contains("log scale"))
        m.entries[1] = BenchEntry(config: "valgrind", label: "valgrind", samples: [2])
        #expect(BenchHTML.chart(m).contains("linear scale"))
        // A long tail (p90 far above every median) is no reason for a log scale.
        m.entries[1] = BenchEntry(config: "valgrind", label: "valgrind", samples: [0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 30, 30])
        #expect(BenchHTML.chart(m).contains("linear scale"))
    }
}

/// Counts what a chart draws.
private final class ChartShape: NSObject, XMLParserDelegate {
    var bars = 0, errorMarks = 0
    var barWidths: [Double] = []
    var texts: [String] = []
    private var text: String?

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        if name == "rect", attributes["class"] == "bar" { bars += 1; barWidths.append(Double(attributes["width"] ?? "") ?? -1) }
        if name == "path", attributes["class"] == "err" { errorMarks += 1 }
        if name == "text" { text = "" }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text? += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "text", let t = text { texts.append(t); text = nil }
    }
}
