@testable import Faultline
import FaultlineHarness
import Foundation

/// Runs a victim under `faultline exec --html`, loads the page in headless
/// Chromium and keeps a screenshot of it among the test artifacts
/// (`.faultline-artifacts/html-tests/NAME.png` in the package).
enum HTMLPageRuns {
    /// The page's DOM as Chromium built it, the run, and the report files.
    struct Loaded {
        var dom: String
        var run: Finished
        var reports: [String]
    }

    /// Where screenshots are kept.
    static let artifacts: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
        return "\(root)/.faultline-artifacts/html-tests"
    }()

    /// `faultline exec --html PAGE [options] -- VICTIM ARGS` in a fresh
    /// directory, then the page through Chromium.
    static func load(_ name: String, victim: String, _ args: [String], options: [String] = [],
                     environment: [String: String] = [:]) throws -> Loaded {
        let browser = try HeadlessChromium.installed().orThrow("chromium")
        let dir = try makeTemporaryDirectory("faultline-html")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let page = "\(dir)/\(name).html", reports = "\(dir)/reports"
        let run = try runProgram(try BuildProducts.path("faultline"),
                                 ["exec", "--report-dir", reports, "--html", page] + options + ["--", try BuildProducts.path(victim)] + args,
                                 environment: environment, directory: dir)
        guard FileManager.default.fileExists(atPath: page) else {
            throw Victims.Unexpected(what: "no page written: \(run.stderr.suffix(2000))")
        }
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        try browser.screenshot(page, to: "\(artifacts)/\(name).png", width: 1200, height: 1100)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: reports)) ?? []
        return Loaded(dom: try browser.dumpDOM(page), run: run, reports: files.filter { $0.hasSuffix(".json") })
    }

    /// The elements of `dom` that open with `<TAG class="CLASSES…"` (the
    /// classes given all present), each up to its closing tag: enough of
    /// an HTML parser for Chromium's serialisation, which writes every
    /// attribute quoted and every element closed.
    static func elements(_ tag: String, classes: [String], in dom: String) -> [String] {
        var out: [String] = []
        var rest = dom[...]
        while let start = rest.range(of: "<\(tag) class=\"") {
            let after = rest[start.upperBound...]
            guard let quote = after.firstIndex(of: "\"") else { break }
            let have = after[..<quote].split(separator: " ").map(String.init)
            rest = after
            guard classes.allSatisfy(have.contains) else { continue }
            // Up to the matching close tag, counting nested elements of the tag.
            var depth = 0, i = start.lowerBound
            while i < dom.endIndex {
                if dom[i...].hasPrefix("<\(tag) ") || dom[i...].hasPrefix("<\(tag)>") { depth += 1 }
                if dom[i...].hasPrefix("</\(tag)>") {
                    depth -= 1
                    if depth == 0 { out.append(String(dom[start.lowerBound..<dom.index(i, offsetBy: tag.count + 3)])); break }
                }
                i = dom.index(after: i)
            }
        }
        return out
    }
}

extension Optional {
    /// The value, or an error naming what is missing.
    func orThrow(_ what: String) throws -> Wrapped {
        guard let self else { throw Victims.Unexpected(what: "\(what) is missing") }
        return self
    }
}
