@testable import Faultline
import FaultlineHarness
import Foundation
import Testing

/// Names a report carries come from the program (its functions, threads,
/// stderr) and from whoever wrote the file: the page must show them as
/// text. A real hang report, symbolicated, gets hostile names on every
/// frame and thread; the page is checked as text and as the DOM Chromium
/// builds from it.
@Suite struct HostileNamesTests {
    static let hostile = [
        "<script>alert(1)</script>",
        "\"quoted\" & 'single' </title></svg><b>bold</b>",
        "std::map<std::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::vector<std::pair<int const, "
            + String(repeating: "std::unique_ptr<Widget<int>, std::default_delete<Widget<int> > >, ", count: 40) + "> > >::operator[](Key&&)",
    ]

    /// A real hang report with `hostile` names on its frames and threads.
    static func hostileHangReport() throws -> Report {
        let dir = try makeTemporaryDirectory("faultline-html-hostile")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Victims.hang("spin-recover", in: dir, environment: ["FAULTLINE_HANG_THRESHOLD_MS": "500"])
        let entries = try ReportStore.list(directory: dir)
        var report = try #require(entries.compactMap(\.report).first { $0.kind == "hang" }, "no hang report in \(dir)")
        report = Symbolicator().symbolicate(report)
        func rename(_ frame: inout Report.Frame, _ k: Int) {
            frame.symbol = Report.Symbol(function: hostile[k % hostile.count], file: "/src/<dir>&/x.c", line: k, column: nil, inlined: nil, perfMap: nil)
        }
        if var t = report.crashedThread {
            for k in t.frames.indices { rename(&t.frames[k], k) }
            t.name = "<img src=x onerror=alert(2)>"
            report.crashedThread = t
        }
        // The call tree's frames are renamed the same way.
        if case .object(var hang)? = report.sections["hang"], let nodes = hang["call_tree"]?.arrayValue {
            hang["call_tree"] = .array(nodes.enumerated().map { k, node in
                guard case .object(var o) = node else { return node }
                o["symbol"] = .object(["function": .string(hostile[k % hostile.count]), "file": .string("/src/<dir>&/x.c"), "line": .number(Double(k))])
                return .object(o)
            })
            report.sections["hang"] = .object(hang)
        }
        report.process.name = "<victim>&\"'"
        report.stderrTail = "</pre><script>alert(3)</script>\n"
        return report
    }

    @Test func hostileNamesAreTextInThePage() throws {
        let report = try Self.hostileHangReport()
        let html = ReportPage(title: "<title>&").render([ReportPage.Item(report: report, path: "/tmp/<x>.json")])
        // No markup but the page's own: every < of a name is an entity.
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img"))
        #expect(!html.contains("<b>bold"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&quot;quoted&quot; &amp; &#39;single&#39; &lt;/title&gt;&lt;/svg&gt;"))
        #expect(html.contains("&lt;img src=x onerror=alert(2)&gt;"))
        // The flame graph's boxes cut the long template to fit; its tooltip keeps it whole.
        let flame = try #require(html.range(of: "<svg class=\"flame\"").map { String(html[$0.lowerBound...]) })
        #expect(flame.contains("operator[](Key&amp;&amp;)"), "the tooltip has the whole name")
        #expect(flame.contains("std::map&lt;std::basic_string&lt;char, std::char_traits&lt;char&gt;, std:…</text>")
                || flame.contains("…</text>"), "a long name is cut in its box")
    }

    @Test(.enabled(if: HeadlessChromium.missing == nil, "SKIP: \(HeadlessChromium.missing ?? "")"))
    func chromiumBuildsNoElementFromAHostileName() throws {
        let report = try Self.hostileHangReport()
        let dir = try makeTemporaryDirectory("faultline-html-hostile-page")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let page = "\(dir)/hostile.html"
        #expect(ReportPage(title: "hostile names").write([ReportPage.Item(report: report)], to: page) == nil)
        let browser = try #require(HeadlessChromium.installed())
        try FileManager.default.createDirectory(atPath: HTMLPageRuns.artifacts, withIntermediateDirectories: true)
        try browser.screenshot(page, to: "\(HTMLPageRuns.artifacts)/hostile-names.png")
        let dom = try browser.dumpDOM(page)
        // Chromium serialises text with < and & as entities: an element
        // made from a name would show up as a tag.
        #expect(!dom.contains("<script"))
        #expect(!dom.contains("<img"))
        #expect(!dom.contains("<b>"))
        #expect(dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(dom.contains("&lt;img src=x onerror=alert(2)&gt;"))
        // The flame graph survived the names: every box is still in its svg.
        let flame = try #require(HTMLPageRuns.elements("svg", classes: ["flame"], in: dom).first)
        #expect(HTMLPageRuns.elements("g", classes: ["frame"], in: flame).count >= 5)
        #expect(flame.contains("Key&amp;&amp;"))
    }
}
