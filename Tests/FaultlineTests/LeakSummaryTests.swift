import Faultline
import Foundation
import Testing

/// `faultline exec --leaks`'s summary over real leak reports: victim-leak run
/// under the real malloc shim with the exit check on.
@Suite struct LeakSummaryTests {
    private func leakReports(_ args: [String], env: [String: String] = [:]) throws -> [Report] {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let victim = try BuildProducts.path("victim-leak")
        let shim = try BuildProducts.path("libFaultlineMallocShim.so")
        var environment = ["FAULTLINE_REPORT_DIR": dir, "LD_PRELOAD": shim, "FAULTLINE_DETECTORS": "leaks"]
        for (k, v) in env { environment[k] = v }
        // In the directory: some cases write files of their own (suppressed-file its leaks.supp).
        let run = try runProgram(victim, args, environment: environment, directory: dir)
        #expect(run.status == 0 && !run.signaled)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { name throws(ReportLoadError) in
            Symbolicator().symbolicateWithWarnings(try ReportStore.load(path: "\(dir)/\(name)")).report
        }
    }

    @Test func lostListIsSummarisedByClassAndOrigin() throws {
        let reports = try leakReports(["list"])
        let report = try #require(reports.first)
        #expect(reports.count == 1 && report.kind == "leak")
        let lines = LeakSummary().render(reports).split(separator: "\n").map(String.init)
        #expect(lines[0] == "leak summary:")
        #expect(lines[1].contains("victim-leak (pid \(report.process.pid), exit): 1 block(s) definitely lost (48 bytes), 9 indirectly (432 bytes), 0 suppressed"))
        // The head first, with the 9 nodes behind it, then those nodes.
        #expect(lines[2].hasPrefix("    480 bytes (48 direct, 432 indirect) in 1 block(s) definitely lost at make_list (main.c:"), "\(lines)")
        #expect(lines[3].hasPrefix("    432 bytes in 9 block(s) indirectly lost at make_list (main.c:"), "\(lines)")
    }

    /// A stripped program's own frames have no symbol: the group is named
    /// by the first of them as image + offset, not by the first named frame
    /// below it (`__libc_start_call_main` for every group of a stripped tar).
    @Test func aStrippedProgramsGroupIsNamedByItsOwnFrame() throws {
        let objcopy = try #require(ToolLocator.find("llvm-objcopy", preferNextTo: "swift") ?? ToolLocator.find("objcopy"),
                                   "no llvm-objcopy next to swift and no objcopy on PATH")
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let stripped = "\(dir)/stripped-leak"
        let strip = try runProgram(objcopy, ["--strip-all", try BuildProducts.path("victim-leak"), stripped])
        #expect(strip.status == 0, "\(strip.stderr)")
        let run = try runProgram(try BuildProducts.path("faultline"), ["exec", "--report-dir", "\(dir)/r", "--leaks", "--", stripped, "list"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(run.stderr.split(separator: "\n").first { $0.contains("(48 direct, 432 indirect) in 1 block(s) definitely lost at ") },
                                "\(run.stderr)")
        #expect(line.range(of: #"definitely lost at stripped-leak \+ 0x[0-9a-f]+$"#, options: .regularExpression) != nil, "\(line)")
    }

    /// A dropped tree (valgrind: "5,080 (40 direct, 5,040 indirect) bytes in
    /// 1 blocks are definitely lost"): the root first with what hangs from
    /// it, its 126 nodes one group whatever their recursion path, held by it.
    @Test func aLostTreeIsItsRootWithWhatHangsFromIt() throws {
        let reports = try leakReports(["tree"])
        let report = try #require(reports.first)
        let lines = ReportFormatter().format(report).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let titles = lines.filter { $0.contains(" block(s) ") && $0.hasSuffix("allocated at:") }
        #expect(titles.count == 3, "\(lines)")
        #expect(titles.first == "5080 bytes (40 direct, 5040 indirect) in 1 block(s) definitely lost, allocated at:", "\(titles)")
        #expect(titles.dropFirst().first == "384 bytes in 16 block(s) definitely lost, allocated at:", "\(titles)")
        #expect(titles.last?.hasPrefix("5040 bytes in 126 block(s) indirectly lost, held by the definitely lost block(s) from make_tree (lost_tree.c:") == true, "\(titles)")
        let summary = LeakSummary().render(reports).split(separator: "\n").map(String.init)
        #expect(summary[2].hasPrefix("    5080 bytes (40 direct, 5040 indirect) in 1 block(s) definitely lost at make_tree (lost_tree.c:"), "\(summary)")
    }

    @Test func growthReportNamesTheGrowingStack() throws {
        let reports = try leakReports(["growth", "30", "20"],
                                      env: ["FAULTLINE_LEAK_GROWTH_MS": "60", "FAULTLINE_LEAK_GROWTH_SNAPSHOTS": "3"])
        #expect(reports.contains { $0.kind == "leak_growth" })
        let text = LeakSummary().render(reports)
        #expect(text.contains("growing by "))
        #expect(text.contains("over 3 snapshots"))
        #expect(text.contains("at grow_slowly (main.c:"))
    }

    /// `report show` and `faultline exec` print a leak report as
    /// LeakSanitizer does (totals, then each group over its stack, direct
    /// leaks first), not as a dump of its keys.
    @Test func aLeakReportReadsLikeLeakSanitizers() throws {
        let reports = try leakReports(["list"])
        let report = try #require(reports.first)
        let lines = ReportFormatter().format(report).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[1].hasPrefix("leaks at exit: 1 block(s) definitely lost (48 bytes), 9 indirectly (432 bytes), 0 suppressed, "), "\(lines)")
        let direct = try #require(lines.firstIndex(of: "480 bytes (48 direct, 432 indirect) in 1 block(s) definitely lost, allocated at:"), "\(lines)")
        let indirect = try #require(lines.firstIndex { $0.hasPrefix("432 bytes in 9 block(s) indirectly lost, held by the definitely lost block(s) from make_list (main.c:") && $0.hasSuffix("), allocated at:") }, "\(lines)")
        #expect(direct < indirect, "direct leaks come first")
        #expect(lines[direct + 1].hasPrefix("  #0  0x") && lines[direct + 1].contains("make_list at "), "\(lines[direct + 1])")
        #expect(lines.contains { $0.hasPrefix("scan: ") && $0.contains(" live blocks, ") })
        for raw in ["groups:", "  totals:", "class: definitely_lost", "allocation_stack:", "groups_total"] {
            #expect(!lines.contains { $0.hasPrefix(raw) || $0.contains(raw) }, "raw key \(raw) printed")
        }
        #expect(ReportSummary.oneLine(report).hasPrefix("1 block(s) definitely lost (48 bytes), 9 indirectly (432 bytes)"))

        // The same through `faultline exec`.
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try runProgram(try BuildProducts.path("faultline"), ["exec", "--report-dir", dir, "--", try BuildProducts.path("victim-leak"), "list"])
        #expect(run.status == 0)
        #expect(run.stderr.contains("\n480 bytes (48 direct, 432 indirect) in 1 block(s) definitely lost, allocated at:\n  #0  0x"), "\(run.stderr)")
        #expect(!run.stderr.contains("class: definitely_lost"), "\(run.stderr)")
    }

    @Test func suppressionsAndGrowthReadAsSentences() throws {
        let suppressed = try #require(try leakReports(["suppressed-file"]).first { $0.kind == "leak" })
        let text = ReportFormatter().format(suppressed)
        #expect(text.contains("\nsuppressed:\n  leak:suppressed_allocator  1 block(s), 500 bytes\n"), "\(text)")
        #expect(text.contains("\n91 bytes in 1 block(s) definitely lost, allocated at:\n"))
        #expect(!text.contains("pattern: suppressed_allocator"))

        let growth = try #require(try leakReports(["growth", "30", "20"],
                                                  env: ["FAULTLINE_LEAK_GROWTH_MS": "60", "FAULTLINE_LEAK_GROWTH_SNAPSHOTS": "3"])
            .first { $0.kind == "leak_growth" })
        let lines = ReportFormatter().format(growth).split(separator: "\n").map(String.init)
        #expect(lines[1].range(of: #"^leak growth: one allocation stack grew by \d+ bytes over 3 snapshots 60 ms apart \(\d+, \d+, \d+ bytes\); \d+ bytes live in \d+ block\(s\)$"#,
                               options: .regularExpression) != nil, "\(lines[1])")
        let stack = try #require(lines.firstIndex(of: "growing allocations, allocated at:"))
        #expect(lines[stack + 1].contains("grow_slowly at "))
        #expect(!lines.contains { $0.hasPrefix("leak_growth:") || $0.hasPrefix("allocation_stack:") })
    }

    @Test func noLeakReportsSaySo() {
        #expect(LeakSummary().render([]).contains("no leak reports"))
    }
}
