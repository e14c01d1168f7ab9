import Faultline
import Foundation
import Testing

/// `faultline exec --suppressions FILE`: the file is checked before the
/// program starts (a bad one is one line and status 64, the program never
/// runs) and passed on as an absolute path.
@Suite struct ExecSuppressionsTests {
    private func faultline(_ args: [String], in directory: String) throws -> Finished {
        try runProgram(try BuildProducts.path("faultline"), args, directory: directory)
    }

    /// The lines faultline itself printed (not the program's).
    private func ownLines(_ run: Finished) -> [String] {
        run.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("faultline: ") }
    }

    /// `--gen-suppressions` prints, for each leak group and heap error, a
    /// comment and the line that silences it; the whole stderr given back as
    /// the file (the other lines are refused with a warning) silences them,
    /// and the reports of the second run are only what it added.
    @Test func generatedSuppressionsSilenceTheirReports() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let victim = try BuildProducts.path("victim-leak")
        let env = ["FAULTLINE_HALT_ON_ERROR": "0"]
        let first = try runProgram(try BuildProducts.path("faultline"),
                                   ["exec", "--report-dir", "\(dir)/first", "--gen-suppressions", "--", victim, "gen-suppressions", "first"],
                                   environment: env, directory: dir)
        #expect(first.status == 0, "\(first.stderr)")
        let lines = first.stderr.split(separator: "\n").map(String.init)
        // Each comment is followed by its line (grep -A1); the indirectly
        // lost nodes get their holder's.
        let generated = lines.indices.filter { $0 > 0 && lines[$0 - 1].hasPrefix("# faultline --gen-suppressions") }.map { lines[$0] }
        #expect(generated == ["double_free:^gen_free_twice$", "leak:^gen_lose_block$", "leak:^gen_lose_list$", "leak:^gen_lose_list$"], "\(first.stderr)")
        try first.stderr.write(toFile: "\(dir)/all.supp", atomically: true, encoding: .utf8)
        let second = try runProgram(try BuildProducts.path("faultline"),
                                    ["exec", "--report-dir", "\(dir)/second", "--suppressions", "all.supp", "--", victim, "gen-suppressions", "first"],
                                    environment: env, directory: dir)
        #expect(second.status == 64, "the whole stderr has lines that are not suppressions: \(second.stderr)")
        let kept = lines.indices.filter { lines[$0].hasPrefix("# faultline --gen-suppressions") || ($0 > 0 && lines[$0 - 1].hasPrefix("# faultline --gen-suppressions")) }
        try kept.map { lines[$0] }.joined(separator: "\n").write(toFile: "\(dir)/kept.supp", atomically: true, encoding: .utf8)
        let third = try runProgram(try BuildProducts.path("faultline"),
                                   ["exec", "--report-dir", "\(dir)/third", "--suppressions", "kept.supp", "--", victim, "gen-suppressions", "all"],
                                   environment: env, directory: dir)
        #expect(third.status == 0, "\(third.stderr)")
        let reports = try FileManager.default.contentsOfDirectory(atPath: "\(dir)/third").filter { $0.hasSuffix(".json") }
            .map { name throws(ReportLoadError) in try ReportStore.load(path: "\(dir)/third/\(name)") }
        #expect(Set(reports.map(\.kind)) == ["leak", "invalid_free"] && reports.count == 2, "\(third.stderr)")
        let leak = try #require(reports.first { $0.kind == "leak" })
        #expect(leak.sections["leak"]?["totals"]?["reported_lost"]?["bytes"]?.integerValue == 91, "\(third.stderr)")
        #expect(leak.sections["leak"]?["totals"]?["suppressed"]?["bytes"]?.integerValue == 460, "\(third.stderr)")
    }

    /// A heap_buffer_overflow found at free gets its generated line (the
    /// freeing function, anchored), and that line given back through
    /// `--suppressions` hides the overflow: no report, no halt, the
    /// victim's own status.
    @Test func generatedOverflowSuppressionSilencesIt() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let victim = try BuildProducts.path("victim-heap")
        let first = try faultline(["exec", "--report-dir", "\(dir)/first", "--gen-suppressions", "--", victim, "heap-overflow-one"], in: dir)
        #expect(first.status == 23, "\(first.stderr)")
        let lines = first.stderr.split(separator: "\n").map(String.init)
        let generated = lines.indices.filter { $0 > 0 && lines[$0 - 1].hasPrefix("# faultline --gen-suppressions") }.map { lines[$0] }
        #expect(generated == ["heap_buffer_overflow:^victim_release$"], "\(first.stderr)")
        try generated.joined(separator: "\n").write(toFile: "\(dir)/s.supp", atomically: true, encoding: .utf8)
        let second = try faultline(["exec", "--report-dir", "\(dir)/second", "--suppressions", "s.supp", "--", victim, "heap-overflow-one"], in: dir)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(!second.stderr.contains("faultline: heap_buffer_overflow"), "\(second.stderr)")
        let reports = (try? FileManager.default.contentsOfDirectory(atPath: "\(dir)/second"))?.filter { $0.hasSuffix(".json") } ?? []
        #expect(reports.isEmpty, "\(reports)")
    }

    @Test func missingFileIsOneLineAndStatus64() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try faultline(["exec", "--suppressions", "nope.supp", "--", "/bin/echo", "ran"], in: dir)
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty, "the program ran")
        #expect(ownLines(run) == ["faultline: --suppressions nope.supp: no such file; give the path of a suppressions file (docs/malloc-shim.md, \"Suppressions\")"])
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/faultline-reports"))
    }

    @Test func directoryIsRefused() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try faultline(["exec", "--suppressions", dir, "--", "/bin/echo", "ran"], in: dir)
        #expect(run.status == 64)
        #expect(ownLines(run) == ["faultline: --suppressions \(dir): is a directory; give the path of a suppressions file (docs/malloc-shim.md, \"Suppressions\")"])
    }

    /// The first bad line is named by file and line; comments, blank lines
    /// and good lines before it are not.
    @Test func malformedLineIsNamedByFileAndLine() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "# known\n\nleak:libfoo\n  double_free:victim_free_again\t\nuse_after_free:x\ninvalid_free:\n".write(toFile: "\(dir)/s.supp", atomically: true, encoding: .utf8)
        let run = try faultline(["exec", "--suppressions", "s.supp", "--", "/bin/echo", "ran"], in: dir)
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(ownLines(run) == ["faultline: s.supp:5: not a suppression (expected KIND:FUNCTION_OR_LIBRARY, KIND one of leak, double_free, invalid_free, alloc_dealloc_mismatch, new_delete_type_mismatch, write_after_free, heap_buffer_overflow, heap_buffer_underflow): \"use_after_free:x\"; fix or delete the line"])
    }

    /// A good relative path reaches the program as an absolute one, and the
    /// shim suppresses with it: the double free is neither reported nor halts.
    @Test func goodFileIsPassedOnAbsoluteAndSuppresses() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "double_free:victim_free_again\n".write(toFile: "\(dir)/s.supp", atomically: true, encoding: .utf8)
        let env = try faultline(["exec", "--suppressions", "s.supp", "--", "/usr/bin/env"], in: dir)
        #expect(env.status == 0)
        #expect(env.stdout.split(separator: "\n").contains("FAULTLINE_SUPPRESSIONS=\(dir)/s.supp"), "\(env.stdout)")
        let run = try faultline(["exec", "--suppressions", "s.supp", "--", try BuildProducts.path("victim-heap"), "double-free"], in: dir)
        #expect(run.status == 1, "\(run.stderr)")  // the victim's own status once the second free returns
        #expect(run.stdout.contains("victim: the second free returned"))
        #expect(run.stderr.contains("faultline: 0 report(s)"), "\(run.stderr)")
    }

    /// The limits the shim reads the file with (suppressions_parse.h).
    @Test func limitsAreTheShims() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let long = "\(dir)/long.supp", many = "\(dir)/many.supp", big = "\(dir)/big.supp", fits = "\(dir)/fits.supp"
        try ("leak:" + String(repeating: "x", count: 256) + "\n").write(toFile: long, atomically: true, encoding: .utf8)
        try String(repeating: "leak:x\n", count: 257).write(toFile: many, atomically: true, encoding: .utf8)
        try String(repeating: "#\n", count: 131073).write(toFile: big, atomically: true, encoding: .utf8)
        try ("leak:" + String(repeating: "x", count: 255) + "\n" + String(repeating: "leak:x\n", count: 255)).write(toFile: fits, atomically: true, encoding: .utf8)
        func error(_ path: String) -> String? {
            do { _ = try SuppressionsFile.check(path, currentDirectory: dir); return nil } catch { return error.description }
        }
        // The line is quoted up to 200 bytes, as the shim quotes it.
        #expect(error(long) == "\(long):1: pattern longer than 255 bytes: \"leak:\(String(repeating: "x", count: 195))...\"; shorten it (a substring of the function name or library path is enough)")
        #expect(error(many) == "\(many):257: more than 256 suppressions; drop or merge some (one pattern may match many functions)")
        #expect(error(big) == "--suppressions \(big): is 262146 bytes, over the 256 KiB the malloc shim reads; split it, or drop what is not needed (docs/malloc-shim.md, \"Suppressions\")")
        #expect(error(fits) == nil)
        #expect(try SuppressionsFile.check("fits.supp", currentDirectory: dir) == fits)
    }
}
